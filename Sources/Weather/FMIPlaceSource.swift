import Feature
import Foundation
import Postgres
import Scheduling

/// FMI's answers for place names as the ``OnDemandCore`` asks for them: the normalised name is the key, a
/// resolution (a place, or none by that name) holds a day, kept in `weather_places`; the forecast FMI answers with
/// is handed to the forecasts (its cell's).
struct FMIPlaceSource: OnDemandValueSource {
    /// A name as asked (sent to FMI as it is) and as remembered (``PlaceResolver/key(_:)``: one entry for every spelling).
    struct Query: Hashable, Sendable, CustomStringConvertible {
        let key: String
        let name: String

        init(_ name: String) {
            key = PlaceResolver.key(name)
            self.name = name
        }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key }
        func hash(into hasher: inout Hasher) { hasher.combine(key) }
        var description: String { key }
    }

    let client: FMIClient
    let pool: PostgresPool
    let forecasts: ForecastService

    /// A resolution older than a day is not served, not even stale: a place's name is asked again.
    func stored(_ query: Query) async throws -> OnDemandStored<PlaceResolver.Resolution>? {
        let rows = try await pool.query(
            "SELECT name, latitude, longitude, resolved_at FROM weather_places WHERE query = $1 AND resolved_at > $2",
            [query.key, Date().addingTimeInterval(-PlaceResolver.lifetime)])
        guard let row = rows.first else { return nil }
        let resolvedAt = try row.decode(Date.self, "resolved_at")
        guard let name = try row.decode(String?.self, "name"), let latitude = try row.decode(Double?.self, "latitude"),
            let longitude = try row.decode(Double?.self, "longitude")
        else { return OnDemandStored(.unknown, fetchedAt: resolvedAt) }
        return OnDemandStored(.found(PlaceResolver.Place(name: name, latitude: latitude, longitude: longitude)), fetchedAt: resolvedAt)
    }

    func store(_ resolution: PlaceResolver.Resolution, for query: Query, fetchedAt: Date) async throws {
        let place: PlaceResolver.Place? = if case .found(let place) = resolution { place } else { nil }
        _ = try await pool.execute(
            """
            INSERT INTO weather_places (query, name, latitude, longitude, resolved_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (query) DO UPDATE SET name = EXCLUDED.name, latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude,
                resolved_at = EXCLUDED.resolved_at
            """, [query.key, place?.name, place?.latitude, place?.longitude, fetchedAt])
        _ = try await pool.execute("DELETE FROM weather_places WHERE resolved_at < $1", [fetchedAt.addingTimeInterval(-2 * PlaceResolver.lifetime)])
    }

    func lastFetch() async throws -> Date? { nil }

    /// One FMI call: the place's forecast, whose location is the place.
    func fetch(_ query: Query) async throws -> UpstreamReply<PlaceResolver.Resolution> {
        do {
            let series = try await client.forecast(place: query.name, now: Date())
            guard let location = series.first?.location else { throw FetchError.suspect("FMI answered no location for a place") }
            let place = PlaceResolver.Place(name: location.name ?? query.name, latitude: location.latitude, longitude: location.longitude)
            let forecast = Forecast(cell: GridCell(latitude: place.latitude, longitude: place.longitude), fetchedAt: Date(), series: series)
            if !forecast.series.isEmpty { await forecasts.adopt(forecast) }
            return .answer(.found(place))
        } catch let error as FMIError where error.isUnknownPlace {
            return .answer(.unknown)
        }
    }

    func lifetime(of resolution: PlaceResolver.Resolution, for query: Query, now: Date) -> TimeInterval { PlaceResolver.lifetime }

    /// A resolution past its day is asked again, never served stale.
    func mayServeStale(_ resolution: PlaceResolver.Resolution, now: Date) -> Bool { false }

    func cost(of resolution: PlaceResolver.Resolution) -> Int { 128 }

    func state(of error: any Error) -> String { FMIError.state(of: error) }
}
