import Postgres
import Scheduling

/// What changed in the community's tables that memory holds answers of — told to this replica's memory at once and to
/// the others through the change feed once the transaction commits.
///
/// Check-ins announce themselves once: their table's declared notices (`pier_announce_rows`), which feed both
/// Realtime's subscribers and every replica's memory (``CheckinChanges``) — so a check-in written by any statement
/// (a route, the archive, a deleted user's cascade, an import) is heard the same way, and nothing announces it again.
enum CommunityChange: Sendable, Equatable {
    /// Check-ins (``CheckinCounts``): heard through their trigger's notices.
    case checkins
    /// Rides counted: the history or verified sessions of `users` (`nil`: anybody's) — ``Leaderboard``, ``RiderFigures``.
    case history([String]?)
    /// Chosen names (the leaderboard shows them).
    case names
    /// A user deleted with everything about them (`nil`: somebody, on another replica): no board may show them a
    /// moment longer.
    case deleted(String?)

    /// The change feed's topics (another replica hears only the kind: it forgets every rider's figures).
    static let historyTopic = ChangeTopic("nextwave-history")
    static let deletedTopic = ChangeTopic("nextwave-deleted")

    /// `nil`: the table's trigger announces it.
    var topic: ChangeTopic? {
        switch self {
        case .checkins: nil
        case .history, .names: Self.historyTopic
        case .deleted: Self.deletedTopic
        }
    }

    /// The change another replica announced as `topic` (it names the kind only: anybody's), or `nil`: not the community's.
    init?(announced topic: ChangeTopic) {
        switch topic {
        case Self.historyTopic: self = .history(nil)
        case Self.deletedTopic: self = .deleted(nil)
        default: return nil
        }
    }

    /// Other replicas drop what they hold of it once this transaction commits.
    func announce(on connection: PostgresConnection) throws {
        if let topic { try ChangeFeed.announce(topic, on: connection) }
    }
}
