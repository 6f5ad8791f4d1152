import Postgres

extension PostgresRow {
    /// A text array of words PostgreSQL writes without quotes (uuids, season names: no comma, quote, brace or space),
    /// from its text form `{a,b}`.
    func words(_ column: String) throws -> [String] {
        try decode(String.self, column).dropFirst().dropLast().split(separator: ",").map(String.init)
    }
}
