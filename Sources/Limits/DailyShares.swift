import Basics

/// How a daily quota is split, so that no client or network can spend a day for everybody: each group a request
/// counts in (``ClientGroup``) may use at most its share of the day, and ``reserve`` of the day is kept for
/// refreshing answers that more than one client asked for — popular places, lakes and stops stay fresh while
/// new keys are refused. Shares are of the whole day; every replica counts in the same PostgreSQL rows.
public struct DailyShares: Sendable, Equatable {
    /// The most one subscriber (an IPv4 address, an IPv6 /64 or /56) may use of a day.
    public var subscriber: Double
    /// The most one network (an IPv4 /24, an IPv6 /48) may use of a day.
    public var network: Double
    /// The part of a day only refreshes of answers more than one client asked for may use.
    public var reserve: Double
    /// The most a pool of clients may use of a day (App Attest's anonymous pool, where the operator prefers attested
    /// devices).
    public var anonymous: Double

    /// The defaults (docs/operations/keys-and-budgets.md, "Fair shares"): an address or a device 5 % of a day, a network 10 %, 30 %
    /// kept, the anonymous pool 10 %.
    public init(subscriber: Double = 0.05, network: Double = 0.10, reserve: Double = 0.30, anonymous: Double = 0.10) {
        self.subscriber = subscriber
        self.network = network
        self.reserve = reserve
        self.anonymous = anonymous
    }

    /// No shares and no reserve: one client may use the whole day (tests of the quota itself, a private server).
    public static let none = DailyShares(subscriber: 1, network: 1, reserve: 0, anonymous: 1)

    /// Units of a day of `limit` a group of `kind` may use: at least one call of `units`, so that a small quota is
    /// not closed to everyone.
    public func limit(of kind: ClientGroup.Kind, day limit: Int, units: Int) -> Int {
        let share = switch kind.share {
        case .subscriber: subscriber
        case .network: network
        case .pool: anonymous
        }
        return max(units, Int((Double(limit) * share).rounded(.down)))
    }

    /// Units of a day of `limit` that answers only one client asked for may use.
    public func unreserved(day limit: Int) -> Int {
        limit - Int((Double(limit) * reserve).rounded(.up))
    }
}
