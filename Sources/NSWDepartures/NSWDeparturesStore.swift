import Foundation
import Postgres

/// `nsw_departures`: the last answer per upstream request, shared by every replica.
public struct NSWDeparturesStore: Sendable {
    /// Answers older than this are pruned when a new one is stored: every departure in them has left.
    public static let history = "1 day"

    public struct Stored: Sendable {
        /// `nil`: TfNSW knows no such stop.
        public var departures: [Departure]?
        public var fetchedAt: Date
    }

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func answer(for key: String) async throws -> Stored? {
        let rows = try await pool.query("SELECT departures, unknown, fetched_at FROM nsw_departures WHERE request_key = $1", [key])
        guard let row = rows.first else { return nil }
        let fetchedAt = try row.decode(Date.self, "fetched_at")
        if try row.decode(Bool.self, "unknown") { return Stored(departures: nil, fetchedAt: fetchedAt) }
        let departures = try JSONDecoder().decode([Departure].self, from: Data(try row.decode(String.self, "departures").utf8))
        return Stored(departures: departures, fetchedAt: fetchedAt)
    }

    /// Stores (replaces) the answer for `key` — `nil`: an unknown stop — and prunes old ones, in one transaction.
    public func store(_ departures: [Departure]?, for key: String, fetchedAt: Date) async throws {
        let text = String(decoding: try JSONEncoder().encode(departures ?? []), as: UTF8.self)
        try await pool.transaction { connection in
            _ = try connection.execute(
                """
                INSERT INTO nsw_departures (request_key, departures, unknown, fetched_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (request_key) DO UPDATE SET departures = EXCLUDED.departures, unknown = EXCLUDED.unknown,
                    fetched_at = EXCLUDED.fetched_at
                """, [key, text, departures == nil, fetchedAt])
            _ = try connection.execute("DELETE FROM nsw_departures WHERE fetched_at < now() - interval '\(Self.history)'")
        }
    }

    public func lastFetch() async throws -> Date? {
        try await pool.query("SELECT max(fetched_at) AS last FROM nsw_departures").first?.decode(Date?.self, "last")
    }
}
