import Postgres
import Scheduling

/// What changed in the community's tables that memory holds answers of — told to this replica's memory at once and to
/// the others through the change feed once the transaction commits.
enum CommunityChange: Sendable, Equatable {
    /// Check-ins (``CheckinCounts``).
    case checkins
    /// Rides counted: the history or verified sessions of `users` (`nil`: anybody's) — ``Leaderboard``, ``RiderFigures``.
    case history([String]?)
    /// Chosen names (the leaderboard shows them).
    case names
    /// A user deleted with everything about them (`nil`: somebody, on another replica): no board may show them a
    /// moment longer.
    case deleted(String?)

    /// The change feed's topics (another replica hears only the kind: it forgets every rider's figures).
    static let checkinsTopic = ChangeTopic("nextwave-checkins")
    static let historyTopic = ChangeTopic("nextwave-history")
    static let deletedTopic = ChangeTopic("nextwave-deleted")

    var topic: ChangeTopic {
        switch self {
        case .checkins: Self.checkinsTopic
        case .history, .names: Self.historyTopic
        case .deleted: Self.deletedTopic
        }
    }

    /// The change another replica announced as `topic` (it names the kind only: anybody's), or `nil`: not the community's.
    init?(announced topic: ChangeTopic) {
        switch topic {
        case Self.checkinsTopic: self = .checkins
        case Self.historyTopic: self = .history(nil)
        case Self.deletedTopic: self = .deleted(nil)
        default: return nil
        }
    }

    /// Other replicas drop what they hold of it once this transaction commits.
    func announce(on connection: PostgresConnection) throws {
        try ChangeFeed.announce(topic, on: connection)
    }
}
