import Feature
import Synchronization

/// A request let past memory for a key, decided on the event loop before any work for it: while one is held, another
/// request for the key joins the work under way (the PostgreSQL read, the upstream call) and is not asked for its
/// share — the share is asked once per upstream call, by the request that makes it. Claimed before the request's task
/// starts, so requests that arrive together (an app's station list, a carrier's NAT) see each other; released when the
/// request is done with it (dropped: whatever way the request ends).
public final class OnDemandClaim: Sendable {
    /// Another request held a claim for the key when this one was taken: this one joins it, so it costs no call and
    /// counts not against its client's requests at once.
    public let joins: Bool
    /// Tells this claim apart from the key's others (the failure it noted goes with it).
    let serial: UInt64
    private let release: @Sendable () -> Void

    /// The claim the running task works under (``OnDemandCore/admitted(_:client:now:claim:refused:_:)`` sets it): a
    /// call that fails is noted against it, for the requests that join it while it is still held.
    @TaskLocal static var current: OnDemandClaim?

    init(joins: Bool, serial: UInt64, release: @escaping @Sendable () -> Void) {
        self.joins = joins
        self.serial = serial
        self.release = release
    }

    deinit { release() }
}

/// What the event loop decided for a request memory could not answer: refused (rendered as the route answers) or let
/// through with its claim.
public enum OnDemandAdmission<Refusal: Sendable>: Sendable {
    case refused(Refusal)
    case admitted(OnDemandClaim)
}

/// The claims held per key (``OnDemandClaim``), and the upstream's failure a request still holding its claim saw.
///
/// A call that fails fast ends before the requests that arrived with it reach it; they would each make a call of
/// their own — spending their share on an upstream that has just failed, and refused for it. So while the request
/// that saw the failure holds its claim (weather asks MET Norway in the meantime), the requests that join it share
/// the failure as they would have shared the answer. It ends with that request: a key under constant demand is asked
/// again by the next request that makes a call.
final class OnDemandClaims<Key: Hashable & Sendable>: Sendable {
    private struct Entry {
        var holders: Set<UInt64> = []
        var failure: (why: OnDemandUnavailable, by: UInt64)?
    }

    private let held = Mutex<[Key: Entry]>([:])
    private let serials = Atomic<UInt64>(0)

    /// Whether a request holds a claim for `key`.
    func isClaimed(_ key: Key) -> Bool {
        held.withLock { $0[key] != nil }
    }

    func claim(_ key: Key) -> OnDemandClaim {
        let serial = serials.add(1, ordering: .relaxed).newValue
        let joins = held.withLock { held in
            defer { held[key, default: Entry()].holders.insert(serial) }
            return held[key] != nil
        }
        return OnDemandClaim(joins: joins, serial: serial) { [self] in
            held.withLock { held in
                guard var entry = held[key] else { return }
                entry.holders.remove(serial)
                if entry.failure?.by == serial { entry.failure = nil }
                held[key] = entry.holders.isEmpty ? nil : entry
            }
        }
    }

    /// Notes that the upstream failed for `key` in a call made under `claim` (one of the key's): shared until it is
    /// released.
    func note(_ failure: OnDemandUnavailable, for key: Key, by claim: OnDemandClaim) {
        held.withLock { held in
            guard held[key]?.holders.contains(claim.serial) == true else { return }
            held[key]?.failure = (failure, claim.serial)
        }
    }

    /// The failure a request still holding its claim for `key` saw, if any.
    func failure(for key: Key) -> OnDemandUnavailable? {
        held.withLock { $0[key]?.failure?.why }
    }
}
