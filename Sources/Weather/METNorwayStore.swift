import Foundation
import Postgres

/// `metno_forecasts` (migration 0014): MET Norway's forecast per cell, shared by the replicas.
public struct METNorwayStore: Sendable {
    let pool: PostgresPool
    /// Rows kept at most (random points cannot grow the table without bound).
    let maximumRows: Int

    public init(pool: PostgresPool, maximumRows: Int = 10_000) {
        self.pool = pool
        self.maximumRows = maximumRows
    }

    func held(_ cell: GridCell) async throws -> METNorwayHeld? {
        guard
            let row = try await pool.query(
                "SELECT fetched_at, expires, last_modified, hours::text AS hours FROM metno_forecasts WHERE cell_lat = $1 AND cell_lon = $2",
                [cell.latitudeIndex, cell.longitudeIndex]
            ).first
        else { return nil }
        let hours = try Self.hours(from: try row.decode(String.self, "hours"))
        guard !hours.isEmpty else { return nil }
        return METNorwayHeld(
            forecast: Forecast(cell: cell, fetchedAt: try row.decode(Date.self, "fetched_at"), hours: hours, source: .metNorway),
            expires: try row.decode(Date.self, "expires"), lastModified: try row.decode(String?.self, "last_modified"))
    }

    func store(_ held: METNorwayHeld, now: Date = Date()) async throws {
        let cell = held.forecast.cell
        let hours = Self.json(held.forecast.hours)
        let limit = maximumRows
        try await pool.transaction { connection in
            _ = try connection.execute(
                """
                INSERT INTO metno_forecasts (cell_lat, cell_lon, fetched_at, expires, last_modified, hours)
                VALUES ($1, $2, $3, $4, $5, $6::jsonb)
                ON CONFLICT (cell_lat, cell_lon) DO UPDATE SET fetched_at = EXCLUDED.fetched_at, expires = EXCLUDED.expires,
                    last_modified = EXCLUDED.last_modified, hours = EXCLUDED.hours
                """, [cell.latitudeIndex, cell.longitudeIndex, held.forecast.fetchedAt, held.expires, held.lastModified, hours])
            _ = try connection.execute("DELETE FROM metno_forecasts WHERE expires < $1", [now.addingTimeInterval(-86_400)])
            _ = try connection.execute(
                "DELETE FROM metno_forecasts WHERE ctid IN (SELECT ctid FROM metno_forecasts ORDER BY expires DESC OFFSET $1)", [limit])
        }
    }

    /// `[[epoch, t, ws, wd, h, p, precipitation, symbol], …]`.
    static func json(_ hours: [Forecast.Hour]) -> String {
        func number(_ value: Double?) -> String { value.map { "\($0)" } ?? "null" }
        return "[" + hours.map { hour in
            "[\(Int(hour.validAt.timeIntervalSince1970)),"
                + [hour.temperature, hour.windSpeed, hour.windDirection, hour.humidity, hour.pressure, hour.precipitation, hour.symbolCode]
                .map(number).joined(separator: ",") + "]"
        }.joined(separator: ",") + "]"
    }

    static func hours(from json: String) throws -> [Forecast.Hour] {
        guard let rows = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[Any]] else { return [] }
        return rows.compactMap { row in
            guard row.count == 8, let epoch = (row[0] as? NSNumber)?.doubleValue else { return nil }
            let values = row.dropFirst().map { ($0 as? NSNumber)?.doubleValue }
            return Forecast.Hour(
                validAt: Date(timeIntervalSince1970: epoch), temperature: values[0], windSpeed: values[1], windDirection: values[2],
                humidity: values[3], pressure: values[4], precipitation: values[5], symbolCode: values[6])
        }
    }
}
