import Basics

/// Which keys more than one client asked for: the reserve of a daily quota (``DailyShares/reserve``) is spent only
/// on those, so that popular places, lakes and stops stay fresh while a flood of new keys is refused.
///
/// Clients are counted on the way past memory (a request memory answered is not seen here, so that hits cost
/// nothing): a key is popular once a second client (another subscriber group) asks for it — typically when its
/// answer has run out and someone else asks again. Held in memory only, bounded by bytes, least recently
/// asked forgotten first; a key this process has not seen ask twice is not popular (after a restart, until asked
/// again).
final class OnDemandAskers<Key: Hashable & Sendable>: Sendable {
    private struct Askers: Sendable {
        var first: ClientGroup
        var many: Bool
    }

    private let keys: LRUCache<Key, Askers>

    init(budgetBytes: Int) {
        keys = LRUCache(budgetBytes: budgetBytes)
    }

    /// Notes that `client` asked for `key`; true when more than one client has (a request on nobody's behalf —
    /// `nil` — counts as everyone's).
    func asked(_ key: Key, by client: ClientGroup?) -> Bool {
        guard let client else { return true }
        guard var askers = keys[key] else {
            keys.set(Askers(first: client, many: false), for: key, cost: 128)
            return false
        }
        if !askers.many, askers.first != client {
            askers.many = true
            keys.set(askers, for: key, cost: 128)
        }
        return askers.many
    }
}
