import Basics
import FMIFormat
import Feature
import Foundation
import Parsing
import Postgres
import SharedAnswers

/// Stations and observations in PostgreSQL/PostGIS; the forecast cells in the shared answer store (kind `fmi-forecast`,
/// key the cell's indices, located at its centre) like every other on-demand answer.
public struct WeatherStore: Sendable {
    /// Observations older than this are deleted after each fetch.
    public static let observationHistory = "48 hours"
    /// How long a forecast is kept after it was fetched: a stale forecast is still worth serving for a day or two, and
    /// the store stays bounded by the FMI budget.
    public static let forecastHistory: Duration = .seconds(48 * 3600)
    static let forecastKind = "fmi-forecast"

    /// A stored cell near a point: which, how far, and how old its forecast is.
    public struct NearbyCell: Sendable, Equatable {
        public var cell: GridCell
        public var kilometres: Double
        public var fetchedAt: Date
    }

    private let pool: PostgresPool
    private let forecasts: SharedAnswerKind

    public init(pool: PostgresPool) {
        self.pool = pool
        // Stored as expiring when fetched: the retention is the history kept.
        forecasts = SharedAnswerKind(kind: Self.forecastKind, store: SharedAnswerStore(pool: pool), retention: Self.forecastHistory)
    }

    /// A cell's key in the store: its indices.
    static func key(_ cell: GridCell) -> String {
        "\(cell.latitudeIndex),\(cell.longitudeIndex)"
    }

    static func cell(key: String) -> GridCell? {
        let parts = key.split(separator: ",")
        guard parts.count == 2, let latitude = Int(parts[0]), let longitude = Int(parts[1]) else { return nil }
        return GridCell(latitudeIndex: latitude, longitudeIndex: longitude)
    }

    /// Upserts the stations and their observation rows in one transaction and trims the observations' history.
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
        guard let stored = try await forecasts.answer(Self.key(cell)), stored.outcome == .found else { return nil }
        return Forecast(cell: cell, fetchedAt: stored.fetchedAt, hours: try Self.hours(stored.body))
    }

    /// The nearest stored cell within `kilometres` of the point whose forecast was fetched at or after
    /// `freshSince`, and the nearest one of any age (the shared store's one nearest lookup, sphere distances like
    /// ``GreatCircle``). `own` (the point's own cell) is left out.
    public func nearbyCells(
        latitude: Double, longitude: Double, within kilometres: Double, freshSince: Date, excluding own: GridCell
    ) async throws -> (fresh: NearbyCell?, any: NearbyCell?) {
        let found = try await forecasts.store.nearby(
            kind: Self.forecastKind, parameters: "", latitude: latitude, longitude: longitude, within: kilometres * 1000,
            freshSince: freshSince, excluding: Self.key(own))
        func cell(_ nearby: SharedAnswerStore.Nearby?) -> NearbyCell? {
            guard let nearby, let cell = Self.cell(key: nearby.key) else { return nil }
            return NearbyCell(cell: cell, kilometres: nearby.metres / 1000, fetchedAt: nearby.fetchedAt)
        }
        return (cell(found.fresh), cell(found.any))
    }

    /// Replaces a cell's forecast.
    public func store(_ forecast: Forecast) async throws {
        let cell = forecast.cell
        try await forecasts.store(
            StoredAnswer(.found, body: Self.body(forecast.hours), fetchedAt: forecast.fetchedAt, expiresAt: forecast.fetchedAt), key: Self.key(cell),
            location: SharedAnswerLocation(parameters: "", latitude: cell.latitude, longitude: cell.longitude))
    }

    /// `{"hours": [[epoch s, temperature, wind speed, wind direction, humidity, pressure, precipitation, WeatherSymbol3,
    /// gust, feels-like], …]}` (`null` where FMI gave none).
    static func body(_ hours: [Forecast.Hour]) throws -> [UInt8] {
        try OrderedJSONEncoder.encode(["hours": hours.map { hour in
            [hour.validAt.timeIntervalSince1970, hour.temperature, hour.windSpeed, hour.windDirection, hour.humidity, hour.pressure,
             hour.precipitation, hour.symbolCode, hour.windGust, hour.feelsLike]
        }])
    }

    /// The hours of a stored body (Pier's own scanner: no Foundation object per number, this runs per cell read).
    static func hours(_ body: [UInt8]) throws -> [Forecast.Hour] {
        guard let rows = try JSONScanner.parse(body)["hours"]?.elements else { return [] }
        return rows.compactMap { row in
            guard let values = row.elements, values.count == 10, let epoch = values[0].number(in: body) else { return nil }
            let value = { (index: Int) in values[index].number(in: body) }
            return Forecast.Hour(
                validAt: Date(timeIntervalSince1970: epoch), temperature: value(1), windSpeed: value(2), windDirection: value(3),
                humidity: value(4), pressure: value(5), precipitation: value(6), symbolCode: value(7), windGust: value(8), feelsLike: value(9))
        }
    }
}
