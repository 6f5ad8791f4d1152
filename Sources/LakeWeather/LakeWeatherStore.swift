import Foundation
import Postgres
import UpstreamHTTP

/// `lake_weather_forecasts`: the last good forecast per cell, shared by every replica.
public struct LakeWeatherStore: Sendable {
    /// Forecasts not refreshed for this long are deleted when a new one is stored: a 5-day forecast two days
    /// old still covers three days when OpenWeather fails, an older one is not worth keeping.
    public static let history = "2 days"

    public typealias Stored = StoredBody

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func forecast(for cell: ForecastCell) async throws -> Stored? {
        let rows = try await pool.query("SELECT body, fetched_at FROM lake_weather_forecasts WHERE cell_key = $1", [cell.description])
        guard let row = rows.first else { return nil }
        return Stored(body: Array(try row.decode(String.self, "body").utf8), fetchedAt: try row.decode(Date.self, "fetched_at"))
    }

    /// Stores (replaces) the cell's forecast and prunes old ones, in one transaction.
    public func store(_ body: [UInt8], for cell: ForecastCell, fetchedAt: Date) async throws {
        let text = String(decoding: body, as: UTF8.self)
        try await pool.transaction { connection in
            _ = try connection.execute(
                """
                INSERT INTO lake_weather_forecasts (cell_key, body, fetched_at) VALUES ($1, $2, $3)
                ON CONFLICT (cell_key) DO UPDATE SET body = EXCLUDED.body, fetched_at = EXCLUDED.fetched_at
                """, [cell.description, text, fetchedAt])
            _ = try connection.execute("DELETE FROM lake_weather_forecasts WHERE fetched_at < now() - interval '\(Self.history)'")
        }
    }

    public func lastFetch() async throws -> Date? {
        try await pool.query("SELECT max(fetched_at) AS last FROM lake_weather_forecasts").first?.decode(Date?.self, "last")
    }
}
