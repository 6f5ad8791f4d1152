import Foundation
import Postgres

/// The `fetch_runs` table: one row per run, written when it starts and when it ends.
public struct FetchRunLog: Sendable {
    /// Rows older than this are deleted as new runs finish.
    public static let retention = "30 days"

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Records a run as `running`; returns its id.
    public func begin(source: String, at start: Date) async throws -> Int64 {
        let rows = try await pool.query(
            "INSERT INTO fetch_runs (source, started_at, outcome) VALUES ($1, $2, 'running') RETURNING id",
            [source, start])
        guard let row = rows.first else { throw PostgresError.missingColumn("id") }
        return try row.decode(Int64.self, "id")
    }

    public func finish(id: Int64, outcome: FetchOutcome, itemCount: Int?, error: String?, at end: Date) async throws {
        _ = try await pool.execute(
            "UPDATE fetch_runs SET finished_at = $2, outcome = $3, item_count = $4, error = $5 WHERE id = $1",
            [id, end, outcome.rawValue, itemCount, error])
        _ = try await pool.execute(
            "DELETE FROM fetch_runs WHERE started_at < now() - interval '\(Self.retention)'")
    }

    /// Runs left `running` by a process that died, older than `olderThan`, become `failed`.
    public func closeAbandoned(olderThan seconds: Int) async throws -> Int {
        try await pool.execute(
            """
            UPDATE fetch_runs SET outcome = 'failed', finished_at = now(), error = 'interrupted (the process stopped)'
            WHERE outcome = 'running' AND started_at < now() - make_interval(secs => $1)
            """, [seconds])
    }

    /// The last success and the last finished run of every source that has runs.
    public func histories() async throws -> [String: SourceHistory] {
        let rows = try await pool.query(
            """
            SELECT l.source, l.outcome, l.error,
                   (SELECT max(s.finished_at) FROM fetch_runs s WHERE s.source = l.source AND s.outcome = 'ok') AS last_success
            FROM (SELECT DISTINCT ON (source) source, outcome, error FROM fetch_runs
                  WHERE outcome <> 'running' ORDER BY source, started_at DESC) l
            """)
        var result: [String: SourceHistory] = [:]
        for row in rows {
            let source = try row.decode(String.self, "source")
            result[source] = SourceHistory(
                lastSuccess: try row.decode(Date?.self, "last_success"),
                lastOutcome: FetchOutcome(rawValue: try row.decode(String.self, "outcome")),
                lastError: try row.decode(String?.self, "error"))
        }
        return result
    }
}
