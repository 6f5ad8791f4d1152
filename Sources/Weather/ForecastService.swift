import Fetching
import Foundation
import HTTPServer
import Logging
import Metrics
import Synchronization

/// Point forecasts by grid cell through three tiers: this process's memory, then PostgreSQL (fresh for
/// `ttl`), then FMI. Concurrent requests for the same cold cell share one upstream call; when FMI fails the
/// newest stored forecast is served, marked stale.
public final class ForecastService: Sendable {
    /// A forecast and whether it is older than the TTL (served because FMI failed).
    public struct Answer: Sendable {
        public var forecast: Forecast
        public var stale: Bool
    }


    private let client: FMIClient
    private let store: WeatherStore
    private let ttl: TimeInterval
    /// At most 20,000 cells (about 20 MB); beyond it the memory tier starts over.
    private let memory = BoundedCache<GridCell, Forecast>(capacity: 20_000)
    private let inFlight = Mutex<[GridCell: Task<Answer, any Error>]>([:])
    private let upstreamCalls: Counter?
    private let logger: Logger

    public init(client: FMIClient, store: WeatherStore, ttl: TimeInterval = 3600, metrics: MetricsRegistry? = nil, logger: Logger = Logger(label: "pier.weather")) {
        self.client = client
        self.store = store
        self.ttl = ttl
        self.logger = logger
        upstreamCalls = metrics?.counter("pier_fmi_forecast_requests_total", help: "Point forecasts fetched from FMI.")
    }

    /// The cell's forecast from memory when fresh, else from PostgreSQL or FMI (one call per cell at a time).
    public func forecast(for cell: GridCell, now: Date = Date()) async throws -> Answer {
        if let cached = cachedForecast(for: cell, now: now) {
            return Answer(forecast: cached, stale: false)
        }
        let task = inFlight.withLock { running -> Task<Answer, any Error> in
            if let existing = running[cell] { return existing }
            let task = Task { try await self.load(cell, now: now) }
            running[cell] = task
            return task
        }
        return try await task.value
    }

    /// The fresh memory entry only, without waiting (the route's fast path).
    public func cachedForecast(for cell: GridCell, now: Date = Date()) -> Forecast? {
        guard let cached = memory[cell], now.timeIntervalSince(cached.fetchedAt) < ttl else { return nil }
        return cached
    }

    private func load(_ cell: GridCell, now: Date) async throws -> Answer {
        defer { _ = inFlight.withLock { $0.removeValue(forKey: cell) } }
        let stored = try? await store.forecast(for: cell)
        if let stored, now.timeIntervalSince(stored.fetchedAt) < ttl, !stored.hours.isEmpty {
            remember(stored)
            return Answer(forecast: stored, stale: false)
        }
        do {
            upstreamCalls?.increment()
            let forecast = Forecast(cell: cell, fetchedAt: Date(), series: try await client.forecast(for: cell))
            guard !forecast.hours.isEmpty else { throw FetchError.suspect("FMI has no forecast values for cell \(cell)") }
            do { try await store.store(forecast) } catch {
                logger.warning("could not store a forecast; serving it anyway", metadata: ["cell": "\(cell)", "error": "\(error)"])
            }
            remember(forecast)
            return Answer(forecast: forecast, stale: false)
        } catch {
            let fallback = memory[cell] ?? stored
            guard let fallback, !fallback.hours.isEmpty else { throw error }
            logger.warning("FMI forecast failed; serving a stale one", metadata: ["cell": "\(cell)", "error": "\(error)"])
            return Answer(forecast: fallback, stale: true)
        }
    }

    private func remember(_ forecast: Forecast) {
        memory.set(forecast, for: forecast.cell)
    }
}
