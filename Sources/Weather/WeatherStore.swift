import Foundation
import Postgres

/// Stations, observations and forecast cells in PostgreSQL/PostGIS.
public struct WeatherStore: Sendable {
    /// Observations older than this are deleted after each fetch.
    public static let observationHistory = "48 hours"
    /// Forecast cells fetched longer ago than this are deleted after each observations fetch: a stale
    /// forecast is still worth serving for a day or two, and the table stays bounded by the FMI budget.
    public static let forecastHistory = "48 hours"

    /// A stored cell near a point: which, how far, and how old its forecast is.
    public struct NearbyCell: Sendable, Equatable {
        public var cell: GridCell
        public var kilometres: Double
        public var fetchedAt: Date
    }

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Upserts the stations and their observation rows in one transaction and trims the history (of
    /// observations and of forecast cells).
    /// A value FMI sent as `NaN` never erases one stored before for the same time.
    public func store(stations: [FMILocation], rows: [ObservationRow], at date: Date) async throws {
        try await pool.transaction { connection in
            try connection.insert(
                "INSERT INTO weather_stations (fmisid, name, location, updated_at) VALUES",
                row: "($1::integer, $2, ST_SetSRID(ST_MakePoint($4, $3), 4326)::geography, $5)",
                rows: stations.compactMap { station in
                    station.fmisid.map { [$0, station.name ?? "FMI station \($0)", station.latitude, station.longitude, date] }
                },
                tail: "ON CONFLICT (fmisid) DO UPDATE SET name = EXCLUDED.name, location = EXCLUDED.location, updated_at = EXCLUDED.updated_at")
            let columns = ObservationParameter.allCases
            let names = columns.map(\.column)
            try connection.insert(
                "INSERT INTO weather_observations (fmisid, observed_at, \(names.joined(separator: ", "))) VALUES",
                row: "($1::integer, $2::timestamptz, "
                    + (3..<(columns.count + 3)).map { "$\($0)::double precision" }.joined(separator: ", ") + ")",
                rows: rows.map { row in [row.fmisid, row.observedAt] + columns.map { row.values[$0] } },
                tail: "ON CONFLICT (fmisid, observed_at) DO UPDATE SET "
                    + names.map { "\($0) = COALESCE(EXCLUDED.\($0), weather_observations.\($0))" }.joined(separator: ", "))
            _ = try connection.execute(
                "DELETE FROM weather_observations WHERE observed_at < now() - interval '\(Self.observationHistory)'")
            _ = try connection.execute(
                "DELETE FROM weather_forecast_cells WHERE fetched_at < now() - interval '\(Self.forecastHistory)'")
        }
    }

    /// Every station with a temperature in the window, with the newest value of each parameter in it.
    public func latestObservations(since start: Date) async throws -> [StationObservation] {
        let latest = ObservationParameter.allCases.filter { $0 != .t2m }.map { parameter in
            "(SELECT o.\(parameter.column) FROM weather_observations o WHERE o.fmisid = s.fmisid AND o.observed_at > $1 "
                + "AND o.\(parameter.column) IS NOT NULL ORDER BY o.observed_at DESC LIMIT 1) AS \(parameter.column)"
        }
        let rows = try await pool.query(
            """
            SELECT s.fmisid, s.name, ST_Y(s.location::geometry) AS lat, ST_X(s.location::geometry) AS lon,
                   t.observed_at, t.temperature, \(latest.joined(separator: ", "))
            FROM weather_stations s
            JOIN LATERAL (SELECT observed_at, temperature FROM weather_observations o
                          WHERE o.fmisid = s.fmisid AND o.temperature IS NOT NULL AND o.observed_at > $1
                          ORDER BY o.observed_at DESC LIMIT 1) t ON true
            ORDER BY s.fmisid
            """, [start])
        return try rows.map { row in
            StationObservation(
                fmisid: try row.decode(Int.self, "fmisid"), name: try row.decode(String.self, "name"),
                latitude: try row.decode(Double.self, "lat"), longitude: try row.decode(Double.self, "lon"),
                observedAt: try row.decode(Date.self, "observed_at"), temperature: try row.decode(Double?.self, "temperature"),
                windSpeed: try row.decode(Double?.self, "wind_speed"), windDirection: try row.decode(Double?.self, "wind_direction"),
                humidity: try row.decode(Double?.self, "humidity"), pressure: try row.decode(Double?.self, "pressure"),
                weatherCode: try row.decode(Double?.self, "weather_code"), cloudCover: try row.decode(Double?.self, "cloud_cover"))
        }
    }

    /// The reference nearest-station query: PostGIS KNN over the GiST index, among stations with a temperature
    /// observed since `start`. Distance on the sphere, like ``GreatCircle``.
    public func nearestStation(latitude: Double, longitude: Double, since start: Date) async throws -> (fmisid: Int, kilometres: Double)? {
        let rows = try await pool.query(
            """
            SELECT s.fmisid, ST_Distance(s.location, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, false) / 1000 AS km
            FROM weather_stations s
            WHERE EXISTS (SELECT 1 FROM weather_observations o WHERE o.fmisid = s.fmisid AND o.observed_at > $3 AND o.temperature IS NOT NULL)
            ORDER BY s.location <-> ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography
            LIMIT 1
            """, [latitude, longitude, start])
        guard let row = rows.first else { return nil }
        return (try row.decode(Int.self, "fmisid"), try row.decode(Double.self, "km"))
    }

    /// The stored forecast of a cell, however old.
    public func forecast(for cell: GridCell) async throws -> Forecast? {
        let rows = try await pool.query(
            """
            SELECT c.fetched_at, p.valid_at, p.temperature, p.wind_speed, p.wind_direction, p.humidity, p.pressure,
                   p.precipitation_1h, p.weather_symbol, p.wind_gust, p.feels_like
            FROM weather_forecast_cells c LEFT JOIN weather_forecast_points p USING (cell_lat, cell_lon)
            WHERE c.cell_lat = $1 AND c.cell_lon = $2 ORDER BY p.valid_at
            """, [cell.latitudeIndex, cell.longitudeIndex])
        guard let first = rows.first else { return nil }
        var hours: [Forecast.Hour] = []
        for row in rows where !(try row.isNull("valid_at")) {
            hours.append(
                Forecast.Hour(
                    validAt: try row.decode(Date.self, "valid_at"), temperature: try row.decode(Double?.self, "temperature"),
                    windSpeed: try row.decode(Double?.self, "wind_speed"), windDirection: try row.decode(Double?.self, "wind_direction"),
                    humidity: try row.decode(Double?.self, "humidity"), pressure: try row.decode(Double?.self, "pressure"),
                    precipitation: try row.decode(Double?.self, "precipitation_1h"),
                    symbolCode: try row.decode(Double?.self, "weather_symbol"), windGust: try row.decode(Double?.self, "wind_gust"),
                    feelsLike: try row.decode(Double?.self, "feels_like")))
        }
        return Forecast(cell: cell, fetchedAt: try first.decode(Date.self, "fetched_at"), hours: hours)
    }

    /// The nearest stored cell within `kilometres` of the point whose forecast was fetched at or after
    /// `freshSince`, and the nearest one of any age: PostGIS KNN over the cells' centres, sphere distances
    /// like ``GreatCircle``. `own` (the point's own cell) is left out.
    public func nearbyCells(
        latitude: Double, longitude: Double, within kilometres: Double, freshSince: Date, excluding own: GridCell
    ) async throws -> (fresh: NearbyCell?, any: NearbyCell?) {
        let point = "ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography"
        func nearest(_ kind: String, _ condition: String) -> String {
            "(SELECT '\(kind)' AS kind, cell_lat, cell_lon, fetched_at, ST_Distance(centre, \(point), false) / 1000 AS km "
                + "FROM weather_forecast_cells WHERE ST_DWithin(centre, \(point), $3, false) "
                + "AND NOT (cell_lat = $5 AND cell_lon = $6)\(condition) ORDER BY centre <-> \(point) LIMIT 1)"
        }
        let rows = try await pool.query(
            nearest("fresh", " AND fetched_at >= $4") + " UNION ALL " + nearest("any", ""),
            [latitude, longitude, kilometres * 1000, freshSince, own.latitudeIndex, own.longitudeIndex])
        var found: (fresh: NearbyCell?, any: NearbyCell?) = (nil, nil)
        for row in rows {
            let nearby = NearbyCell(
                cell: GridCell(latitudeIndex: try row.decode(Int.self, "cell_lat"), longitudeIndex: try row.decode(Int.self, "cell_lon")),
                kilometres: try row.decode(Double.self, "km"), fetchedAt: try row.decode(Date.self, "fetched_at"))
            if try row.decode(String.self, "kind") == "fresh" { found.fresh = nearby } else { found.any = nearby }
        }
        return found
    }

    /// Replaces a cell's forecast in one transaction.
    public func store(_ forecast: Forecast) async throws {
        try await pool.transaction { connection in
            let cell = forecast.cell
            _ = try connection.execute(
                """
                INSERT INTO weather_forecast_cells (cell_lat, cell_lon, fetched_at) VALUES ($1, $2, $3)
                ON CONFLICT (cell_lat, cell_lon) DO UPDATE SET fetched_at = EXCLUDED.fetched_at
                """, [cell.latitudeIndex, cell.longitudeIndex, forecast.fetchedAt])
            _ = try connection.execute(
                "DELETE FROM weather_forecast_points WHERE cell_lat = $1 AND cell_lon = $2", [cell.latitudeIndex, cell.longitudeIndex])
            try connection.insert(
                """
                INSERT INTO weather_forecast_points (cell_lat, cell_lon, valid_at, temperature, wind_speed, wind_direction,
                    humidity, pressure, precipitation_1h, weather_symbol, wind_gust, feels_like) VALUES
                """,
                row: "($1::integer, $2::integer, $3::timestamptz, "
                    + (4...12).map { "$\($0)::double precision" }.joined(separator: ", ") + ")",
                rows: forecast.hours.map { hour in
                    [cell.latitudeIndex, cell.longitudeIndex, hour.validAt, hour.temperature, hour.windSpeed, hour.windDirection,
                     hour.humidity, hour.pressure, hour.precipitation, hour.symbolCode, hour.windGust, hour.feelsLike]
                })
        }
    }
}
