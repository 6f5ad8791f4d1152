import Basics
import Foundation
import Postgres

/// `metno_forecasts` (migrations 0014, 0019): MET Norway's forecast per point, as MET's own steps, shared by the
/// replicas.
public struct METNorwayStore: Sendable {
    let pool: PostgresPool
    /// Rows kept at most (random points cannot grow the table without bound).
    let maximumRows: Int

    public init(pool: PostgresPool, maximumRows: Int = 10_000) {
        self.pool = pool
        self.maximumRows = maximumRows
    }

    func held(_ point: METNorwayPoint) async throws -> METNorwayHeld? {
        guard
            let row = try await pool.query(
                "SELECT fetched_at, expires, last_modified, hours::text AS hours FROM metno_forecasts WHERE cell_lat = $1 AND cell_lon = $2",
                [point.latitudeIndex, point.longitudeIndex]
            ).first
        else { return nil }
        let steps = try Self.steps(from: try row.decode(String.self, "hours"))
        guard !steps.isEmpty else { return nil }
        return METNorwayHeld(
            forecast: METNorwayForecast(updatedAt: nil, steps: steps), fetchedAt: try row.decode(Date.self, "fetched_at"),
            expires: try row.decode(Date.self, "expires"), lastModified: try row.decode(String?.self, "last_modified"))
    }

    func store(_ held: METNorwayHeld, for point: METNorwayPoint, now: Date = Date()) async throws {
        let steps = Self.json(held.forecast.steps)
        let limit = maximumRows
        try await pool.transaction { connection in
            _ = try connection.execute(
                """
                INSERT INTO metno_forecasts (cell_lat, cell_lon, fetched_at, expires, last_modified, hours)
                VALUES ($1, $2, $3, $4, $5, $6::jsonb)
                ON CONFLICT (cell_lat, cell_lon) DO UPDATE SET fetched_at = EXCLUDED.fetched_at, expires = EXCLUDED.expires,
                    last_modified = EXCLUDED.last_modified, hours = EXCLUDED.hours
                """, [point.latitudeIndex, point.longitudeIndex, held.fetchedAt, held.expires, held.lastModified, steps])
            _ = try connection.execute("DELETE FROM metno_forecasts WHERE expires < $1", [now.addingTimeInterval(-86_400)])
            _ = try connection.execute(
                "DELETE FROM metno_forecasts WHERE ctid IN (SELECT ctid FROM metno_forecasts ORDER BY expires DESC OFFSET $1)", [limit])
        }
    }

    /// `[[epoch, t, ws, wd, h, p, precipitation, period hours, "symbol"], …]`.
    static func json(_ steps: [METNorwayForecast.Step]) -> String {
        func number(_ value: Double?) -> String { value.map { "\($0)" } ?? "null" }
        return "[" + steps.map { step in
            "[\(Int(step.time.timeIntervalSince1970)),"
                + [step.temperature, step.windSpeed, step.windDirection, step.humidity, step.pressure, step.precipitation].map(number).joined(separator: ",")
                + "," + (step.periodHours.map(String.init) ?? "null") + "," + (step.symbol.map(JSONString.quote) ?? "null") + "]"
        }.joined(separator: ",") + "]"
    }

    /// A row of another layout (before migration 0019 every row was dropped) reads as nothing held.
    static func steps(from json: String) throws -> [METNorwayForecast.Step] {
        guard let rows = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[Any]] else { return [] }
        return rows.compactMap { row in
            guard row.count == 9, let epoch = (row[0] as? NSNumber)?.doubleValue else { return nil }
            let values = row[1...6].map { ($0 as? NSNumber)?.doubleValue }
            return METNorwayForecast.Step(
                time: Date(timeIntervalSince1970: epoch), temperature: values[0], windSpeed: values[1], windDirection: values[2],
                humidity: values[3], pressure: values[4], precipitation: values[5], periodHours: (row[7] as? NSNumber)?.intValue,
                symbol: row[8] as? String)
        }
    }
}
