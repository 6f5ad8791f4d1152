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

    /// The change feed's names (another replica hears only the kind: it forgets every rider's figures).
    static let checkinsSource = "nextwave-checkins"
    static let historySource = "nextwave-history"
    static let deletedSource = "nextwave-deleted"

    var source: String {
        switch self {
        case .checkins: Self.checkinsSource
        case .history, .names: Self.historySource
        case .deleted: Self.deletedSource
        }
    }

    /// The change another replica announced as `source` (it names the kind only: anybody's), or `nil`: not the community's.
    init?(announced source: String) {
        switch source {
        case Self.checkinsSource: self = .checkins
        case Self.historySource: self = .history(nil)
        case Self.deletedSource: self = .deleted(nil)
        default: return nil
        }
    }

    /// Other replicas drop what they hold of it once this transaction commits.
    func announce(on connection: PostgresConnection) throws {
        try ChangeFeed.announce(source, on: connection)
    }
}
