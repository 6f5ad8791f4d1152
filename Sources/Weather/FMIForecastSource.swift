import FMIFormat
import Feature
import Foundation
import Geography
import OnDemand
import Scheduling

/// FMI's point forecasts per grid cell as the ``OnDemandCore`` asks for them: the cell is the key, located at its centre
/// (so that the engine's memory finds a neighbouring cell's), a forecast is fresh for the TTL and stored in the shared
/// answer store (``WeatherStore``).
struct FMIForecastSource: OnDemandValueSource {
    let client: FMIClient
    let store: WeatherStore
    let ttl: Duration

    func stored(_ cell: GridCell) async throws -> OnDemandStored<Forecast>? {
        guard let stored = try await store.forecast(for: cell), !stored.series.isEmpty else { return nil }
        return OnDemandStored(stored, fetchedAt: stored.fetchedAt)
    }

    func store(_ forecast: Forecast, for cell: GridCell, fetchedAt: Date) async throws {
        try await store.store(forecast)
    }

    func location(of cell: GridCell) -> Coordinate? {
        Coordinate(latitude: cell.latitude, longitude: cell.longitude)
    }

    /// The observations' job reports the `weather` source; forecasts add no history of their own.
    func lastFetch() async throws -> Date? { nil }

    func fetch(_ cell: GridCell) async throws -> UpstreamReply<Forecast> {
        let forecast = Forecast(cell: cell, fetchedAt: Date(), series: try await client.forecast(for: cell))
        guard !forecast.series.isEmpty else { throw FetchError.suspect("FMI has no forecast values for a cell") }
        return .answer(forecast)
    }

    func lifetime(of forecast: Forecast, for cell: GridCell, now: Date) -> TimeInterval { ttl.seconds }

    func cost(of forecast: Forecast) -> Int { forecast.byteCount }

    /// The state only: the cell and FMI's URL would say where a user asked about.
    func state(of error: any Error) -> String { FMIError.state(of: error) }
}
