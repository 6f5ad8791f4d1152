import Foundation
import Parsing
import Postgres
import UpstreamHTTP

/// `stationboard_answers`: the last good upstream answer per request, shared by every replica.
public struct StationboardStore: Sendable {
    /// Answers fetched longer ago than this are deleted when a new one is stored: an old board is still a
    /// timetable worth serving when the upstream fails, but not for ever.
    public static let history = "3 days"

    public typealias Stored = StoredBody

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func answer(for query: StationboardQuery) async throws -> Stored? {
        let rows = try await pool.query("SELECT body, fetched_at FROM stationboard_answers WHERE cache_key = $1", [query.key])
        guard let row = rows.first else { return nil }
        return Stored(body: Array(try row.decode(String.self, "body").utf8), fetchedAt: try row.decode(Date.self, "fetched_at"))
    }

    /// Stores (replaces) the answer for `query` and prunes old ones, in one transaction.
    public func store(_ body: [UInt8], for query: StationboardQuery, serviceDate: CalendarDate, fetchedAt: Date) async throws {
        let text = String(decoding: body, as: UTF8.self)
        try await pool.transaction { connection in
            _ = try connection.execute(
                """
                INSERT INTO stationboard_answers (cache_key, station_id, service_date, body, fetched_at)
                VALUES ($1, $2, $3::date, $4, $5)
                ON CONFLICT (cache_key) DO UPDATE SET body = EXCLUDED.body, fetched_at = EXCLUDED.fetched_at
                """, [query.key, query.station, serviceDate.description, text, fetchedAt])
            _ = try connection.execute("DELETE FROM stationboard_answers WHERE fetched_at < now() - interval '\(Self.history)'")
        }
    }

    /// When the newest stored answer was fetched (for `/health` after a restart).
    public func lastFetch() async throws -> Date? {
        try await pool.query("SELECT max(fetched_at) AS last FROM stationboard_answers").first?.decode(Date?.self, "last")
    }
}
