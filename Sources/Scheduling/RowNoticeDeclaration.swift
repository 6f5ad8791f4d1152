import Postgres

/// What a table announces of its changed rows, as its owner declared it once in SQL (`pier_announce_rows`,
/// Migrations/Scheduling/0039): the topic its notices travel under, the columns they carry with their types, and the column whose
/// value makes two changes the same to a subscriber. Read at start, so the topic and the columns are written nowhere
/// else — the notices' bodies are ``RowNotice``s.
public struct RowNoticeDeclaration: Sendable, Equatable {
    public struct Column: Sendable, Equatable {
        public let name: String
        /// PostgreSQL's name for its type (`text`, `timestamptz`).
        public let type: String
    }

    public let table: String
    public let topic: ChangeTopic
    public let columns: [Column]
    /// One change per value of this column in a statement; it is one of ``columns``.
    public let coalescing: String

    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// No migration declared the table's notices (or its columns are gone).
        case undeclared(table: String)

        public var description: String {
            switch self {
            case .undeclared(let table): "\(table) declares no row notices (pier_announce_rows in its migration)"
            }
        }
    }

    /// The declaration of `table`'s notices.
    public static func read(table: String, on pool: PostgresPool) async throws -> RowNoticeDeclaration {
        let rows = try await pool.query(
            """
            SELECT d.topic, d.coalescing, c.name, t.typname
            FROM pier_row_notices d
            CROSS JOIN unnest(d.columns) WITH ORDINALITY AS c(name, n)
            JOIN pg_attribute a ON a.attrelid = d.table_name::regclass AND a.attname = c.name AND NOT a.attisdropped
            JOIN pg_type t ON t.oid = a.atttypid
            WHERE d.table_name = $1
            ORDER BY c.n
            """, [table])
        guard let first = rows.first else { throw Problem.undeclared(table: table) }
        return RowNoticeDeclaration(
            table: table, topic: ChangeTopic(try first.decode(String.self, "topic")),
            columns: try rows.map { Column(name: try $0.decode(String.self, "name"), type: try $0.decode(String.self, "typname")) },
            coalescing: try first.decode(String.self, "coalescing"))
    }
}
