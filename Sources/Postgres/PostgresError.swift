/// What went wrong talking to PostgreSQL. Messages never include parameter values.
public enum PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Could not open a connection (server down, wrong URL, authentication).
    case connectionFailed(String)
    /// The connection broke while in use; the pool replaces it.
    case connectionLost(String)
    /// The server rejected a statement; `sqlState` is the five-character SQLSTATE code.
    case server(sqlState: String, message: String, detail: String?)
    /// A column's value could not be read as the requested Swift type.
    case decoding(column: String, expected: String, value: String?)
    case missingColumn(String)
    /// No connection became free within the pool's acquire timeout.
    case poolTimeout(milliseconds: Int)
    case poolClosed

    public var description: String {
        switch self {
        case .connectionFailed(let message): "cannot connect to PostgreSQL: \(message)"
        case .connectionLost(let message): "PostgreSQL connection lost: \(message)"
        case .server(let state, let message, let detail): "PostgreSQL error \(state): \(message)\(detail.map { " (\($0))" } ?? "")"
        case .decoding(let column, let expected, let value): "column \(column): cannot read \(value.map { "'\($0)'" } ?? "NULL") as \(expected)"
        case .missingColumn(let column): "no column named \(column) in the result"
        case .poolTimeout(let milliseconds): "no database connection free within \(milliseconds) ms"
        case .poolClosed: "the database pool is closed"
        }
    }

    /// SQLSTATE of a server error (`23505` unique violation, …), nil otherwise.
    public var sqlState: String? {
        if case .server(let state, _, _) = self { return state }
        return nil
    }
}
