import Postgres

extension PostgresError {
    /// The database could not be reached or had no connection free: worth trying again.
    var isUnavailable: Bool {
        switch self {
        case .poolTimeout, .connectionFailed, .connectionLost, .poolClosed: true
        default: false
        }
    }
}
