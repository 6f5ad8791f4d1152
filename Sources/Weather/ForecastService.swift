import Basics
import Feature
import Foundation
import Limits
import Logging
import Metrics
import Scheduling

/// Point forecasts by grid cell, kind to FMI: this process's memory, then PostgreSQL (fresh for `ttl`), then
/// FMI — but only with a token from the request budget, and one call per cell at a time.
///
/// When the point's own cell has no fresh forecast and FMI cannot be asked (no token, or FMI failed), the
/// answer degrades instead of failing, in this order of preference:
/// 1. the own cell's forecast, fresh (`own`);
/// 2. the own cell's forecast, older than the TTL (`stale`);
/// 3. the nearest cell within `neighbourKilometres` with a fresh forecast (`neighbour`), memory then PostgreSQL;
/// 4. the nearest cell within reach with an older one (`neighbour_stale`);
/// 5. nothing: ``Unavailable`` with the seconds until the budget has a token again.
///
/// With MET Norway configured (``METNorwayFallback``), FMI's stale forecasts (2 and 4) are served only while younger
/// than ``Settings/preferStaleFMI`` (3 hours from their fetch): an older one gives way to MET Norway's forecast for
/// the cell (`met_norway`, or `met_norway_stale` past MET's `Expires`), and stands only when MET cannot answer
/// either; where FMI had nothing, MET answers instead of ``Unavailable``. A client refused for its own share of the
/// FMI budget is not sent to MET: it is asked to slow down (`429`), not given a second upstream to spend.
public final class ForecastService: Sendable {
    /// Where an answer's forecast came from.
    public enum Provenance: String, Sendable, CaseIterable {
        case own
        case stale
        case neighbour
        case neighbourStale = "neighbour_stale"
        case metNorway = "met_norway"
        case metNorwayStale = "met_norway_stale"
        case unavailable
    }

    /// A forecast for a point and how it was found.
    public struct Answer: Sendable {
        public var forecast: Forecast
        public var provenance: Provenance
        /// From the point to the neighbouring cell's centre; `nil` for the own cell.
        public var kilometres: Double?

        public var stale: Bool { provenance == .stale || provenance == .neighbourStale || provenance == .metNorwayStale }
    }

    /// No forecast within reach.
    public struct Unavailable: Error, CustomStringConvertible {
        /// Whole seconds until asking again could help.
        public var retryAfter: Int
        public var reason: String
        /// Because this client used its share of the budget (`429`), not because FMI or the shared budget
        /// could not serve (`503`).
        public var clientShare = false
        /// Because this client may not spend at all (no App Attest token where one is required: `401`).
        public var unauthorized = false
        public var description: String { reason }
    }

    public struct Settings: Sendable {
        /// How long a fetched forecast counts as fresh.
        public var ttl: Duration
        /// How far a neighbouring cell's forecast may stand in; `0` turns neighbours off.
        public var neighbourKilometres: Double
        public var budget: BudgetSettings
        /// How old (since its fetch) a stale FMI forecast may be and still be preferred over MET Norway's.
        public var preferStaleFMI: Duration

        public init(
            ttl: Duration = .seconds(3600), neighbourKilometres: Double = 10, budget: BudgetSettings = .init(),
            preferStaleFMI: Duration = .seconds(3 * 3600)
        ) {
            self.ttl = ttl
            self.neighbourKilometres = neighbourKilometres
            self.budget = budget
            self.preferStaleFMI = preferStaleFMI
        }
    }

    /// Retry-After when FMI itself failed (not the budget): its errors tend to last longer than a token.
    static let retryAfterFailure = 60

    public let settings: Settings
    public let memory: WeatherMemory
    /// One FMI call per cell at a time, started only with a token from the budget.
    private let fetching: SpenderGate<GridCell, Result<Forecast, any Error>>
    public var budget: SpenderBudget { fetching.budget }
    /// FMI's forecast budget and pause, shared with what else asks FMI for a forecast (place names).
    public var limits: SpenderLimits { fetching.limits }
    private let client: FMIClient
    private let store: WeatherStore
    /// MET Norway, when FMI cannot answer; `nil`: never.
    public let fallback: METNorwayFallback?
    /// One stored-forecast read per cell at a time.
    private let loading = SingleFlight<GridCell, Forecast?>()
    private let upstreamCalls: Counter?
    private let refusals: [SpenderGate<GridCell, Result<Forecast, any Error>>.Refusal: Counter]
    private let logger: Logger

    public init(
        client: FMIClient, store: WeatherStore, settings: Settings = Settings(), memory: WeatherMemory = WeatherMemory(),
        fallback: METNorwayFallback? = nil, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 },
        metrics: MetricsRegistry? = nil, logger: Logger = Logger(label: "pier.weather")
    ) {
        self.client = client
        self.store = store
        self.fallback = fallback
        self.settings = settings
        self.memory = memory
        self.logger = logger
        // A refused cell is served by a neighbour's forecast: no waiting for a token.
        let fetching = SpenderGate<GridCell, Result<Forecast, any Error>>(
            limits: UpstreamLimits(budget: settings.budget, waiting: .never, clock: clock))
        self.fetching = fetching
        upstreamCalls = metrics?.counter("pier_fmi_forecast_requests_total", help: "Point forecasts fetched from FMI.")
        var refusals: [SpenderGate<GridCell, Result<Forecast, any Error>>.Refusal: Counter] = [:]
        // FMI never asks for a pause; only the budget refuses.
        for reason in [SpenderGate<GridCell, Result<Forecast, any Error>>.Refusal.budget, .clientShare] {
            refusals[reason] = metrics?.counter(
                "pier_fmi_budget_refusals_total", help: "Forecast requests to FMI not made: the budget or the client's share was spent.",
                labels: [("reason", reason.rawValue)])
        }
        self.refusals = refusals
        if let metrics {
            let budget = fetching.budget
            metrics.gauge("pier_fmi_budget_tokens", help: "FMI forecast requests that could be made at once now.") { budget.snapshot().tokens }
            metrics.gauge("pier_weather_cache_bytes", help: "Bytes of forecasts and weather answers held in memory.") { Double(memory.bytes) }
            metrics.gauge("pier_weather_cache_budget_bytes", help: "PIER_WEATHER_CACHE_MB in bytes.") { Double(memory.budgetBytes) }
            metrics.gauge("pier_weather_cache_entries", help: "Forecasts, daily forecasts and answers held in memory.") { Double(memory.count) }
        }
    }

    /// The budget and the memory tier for `/health` (JSON members of the `weather` source).
    public func healthJSON() -> String {
        "\"forecast_budget\":\(budget.snapshot().json),"
            + "\"forecast_cache\":{\"bytes\":\(memory.bytes),\"budget_bytes\":\(memory.budgetBytes),\"entries\":\(memory.count),"
            + "\"forecasts\":\(memory.forecastCount),\"evictions\":\(memory.evictions)}"
            + (fallback.map { "," + $0.healthJSON() } ?? "")
    }

    /// The point's own cell's forecast while it is fresh in memory (the route's hit, before it works out who asks).
    public func cachedAnswer(at point: Coordinate, now: Date = Date()) -> Answer? {
        cachedForecast(for: GridCell(latitude: point.latitude, longitude: point.longitude), now: now).map { Answer(forecast: $0, provenance: .own) }
    }

    /// The forecast for a point (see the type's order of preference), or ``Unavailable``.
    /// - Parameter client: who asks, for the per-client share of the budget; `nil` counts only the shared budget.
    public func forecast(at point: Coordinate, client: Spender? = nil, now: Date = Date()) async throws -> Answer {
        try await forecast(latitude: point.latitude, longitude: point.longitude, client: client, now: now)
    }

    private func forecast(latitude: Double, longitude: Double, client: Spender?, now: Date) async throws -> Answer {
        let cell = GridCell(latitude: latitude, longitude: longitude)
        if let fresh = cachedForecast(for: cell, now: now) { return Answer(forecast: fresh, provenance: .own) }
        // An FMI forecast older than MET Norway's would be, kept for when MET cannot answer either.
        var older: Answer?
        let unavailable: Unavailable
        switch await ownForecast(cell, client: client, now: now) {
        case .fresh(let forecast): return Answer(forecast: forecast, provenance: .own)
        case .stale(let forecast, let clientRefused):
            let answer = Answer(forecast: forecast, provenance: .stale)
            if fallback == nil || clientRefused || isRecent(forecast, now: now) { return answer }
            older = answer
            unavailable = Unavailable(retryAfter: Self.retryAfterFailure, reason: "no recent forecast for this point")
        case .missing(let reason):
            unavailable = reason
            if let nearby = await neighbour(latitude: latitude, longitude: longitude, excluding: cell, now: now) {
                if fallback == nil || reason.clientShare || reason.unauthorized || nearby.provenance == .neighbour || isRecent(nearby.forecast, now: now) { return nearby }
                older = nearby
            }
            if reason.clientShare || reason.unauthorized { throw reason }
        }
        if let found = await fallback?.forecast(for: cell, client: client, now: now) {
            return Answer(forecast: found.forecast, provenance: found.stale ? .metNorwayStale : .metNorway)
        }
        if let older { return older }
        throw unavailable
    }

    /// Whether a stale FMI forecast is still preferred over MET Norway's (``Settings/preferStaleFMI``).
    func isRecent(_ forecast: Forecast, now: Date) -> Bool {
        now.timeIntervalSince(forecast.fetchedAt) < settings.preferStaleFMI.seconds
    }

    /// The forecast for a cell's centre (tests, tools).
    public func forecast(for cell: GridCell, client: Spender? = nil, now: Date = Date()) async throws -> Answer {
        try await forecast(latitude: cell.latitude, longitude: cell.longitude, client: client, now: now)
    }

    /// The fresh memory entry only, without waiting (the route's fast path).
    public func cachedForecast(for cell: GridCell, now: Date = Date()) -> Forecast? {
        guard let held = memory.forecast(cell), isFresh(held, now: now) else { return nil }
        return held
    }

    func isFresh(_ forecast: Forecast, now: Date) -> Bool {
        isFresh(fetchedAt: forecast.fetchedAt, now: now)
    }

    /// Whether a forecast fetched at `fetchedAt` is within the TTL.
    public func isFresh(fetchedAt: Date, now: Date) -> Bool {
        now.timeIntervalSince(fetchedAt) < settings.ttl.seconds
    }

    // MARK: The own cell

    private enum Own {
        case fresh(Forecast)
        /// `clientRefused`: FMI was not asked because this client used its share.
        case stale(Forecast, clientRefused: Bool)
        case missing(Unavailable)
    }

    private func ownForecast(_ cell: GridCell, client: Spender?, now: Date) async -> Own {
        let stored = await storedForecast(cell)
        if let stored, isFresh(stored, now: now) { return .fresh(stored) }
        // A client that may not spend (no token where one is required): what is stored, else refused.
        if let refusal = client?.refusal {
            let reason = refusal.refused()
            if let stored { return .stale(stored, clientRefused: true) }
            return .missing(Unavailable(retryAfter: Self.retryAfterFailure, reason: "no forecast within reach of this point yet (\(reason))", unauthorized: true))
        }
        // Join the cell's running FMI call, or start one if the budget (and this client's share) allows.
        let outcome = await fetching.call(cell, spender: client) {
            do { return .success(try await self.fetch(cell)) } catch { return .failure(error) }
        }
        switch outcome {
        case .answered(.success(let forecast)):
            return .fresh(forecast)
        case .answered(.failure(let error)):
            if let stored {
                // The state only: the cell and FMI's URL would say where a user asked about.
                logger.warning("FMI forecast failed; serving a stale one", metadata: ["error": "\(FMIError.state(of: error))"])
                return .stale(stored, clientRefused: false)
            }
            return .missing(Unavailable(retryAfter: Self.retryAfterFailure, reason: "no forecast available for this point: \(error)"))
        case .refused(let refused):
            refusals[refused.refusal]?.increment()
            if let stored { return .stale(stored, clientRefused: refused.refusal.isClients) }
            let seconds = RetryAfter.seconds(refused.retryAfter)
            let why = refused.refusal.isClients ? "this client has used its share of the FMI request budget" : "the FMI request budget is spent"
            return .missing(Unavailable(retryAfter: seconds, reason: "no forecast within reach of this point yet (\(why))", clientShare: refused.refusal.isClients))
        }
    }

    /// The newest forecast held for the cell, memory or PostgreSQL, of any age. Concurrent callers for one
    /// cell share one query; a PostgreSQL error counts as nothing stored.
    private func storedForecast(_ cell: GridCell) async -> Forecast? {
        let held = memory.forecast(cell)
        let stored = await loading.value(for: cell) { () -> Forecast? in
            do {
                guard let stored = try await self.store.forecast(for: cell), !stored.series.isEmpty else { return nil }
                self.memory.remember(stored)
                return stored
            } catch {
                self.logger.warning("could not read a stored forecast", metadata: ["error": "\(error)"])
                return nil
            }
        }
        guard let held else { return stored }
        guard let stored else { return held }
        return stored.fetchedAt > held.fetchedAt ? stored : held
    }

    /// A forecast another FMI call brought (a place's): stored and remembered for its cell like one of ours.
    public func adopt(_ forecast: Forecast) async {
        upstreamCalls?.increment()
        do { try await store.store(forecast) } catch {
            logger.warning("could not store a forecast; serving it anyway", metadata: ["error": "\(error)"])
        }
        memory.remember(forecast)
    }

    /// One FMI call for the cell (the caller holds a token): parse, store, remember.
    private func fetch(_ cell: GridCell) async throws -> Forecast {
        upstreamCalls?.increment()
        let forecast = Forecast(cell: cell, fetchedAt: Date(), series: try await client.forecast(for: cell))
        guard !forecast.series.isEmpty else { throw FetchError.suspect("FMI has no forecast values for cell \(cell)") }
        do { try await store.store(forecast) } catch {
            logger.warning("could not store a forecast; serving it anyway", metadata: ["error": "\(error)"])
        }
        memory.remember(forecast)
        return forecast
    }

    // MARK: Neighbours

    /// The nearest other cell with a fresh forecast within reach (memory, then PostgreSQL), else the nearest
    /// with any forecast.
    private func neighbour(latitude: Double, longitude: Double, excluding own: GridCell, now: Date) async -> Answer? {
        let reach = settings.neighbourKilometres
        guard reach > 0 else { return nil }
        let freshSince = now.addingTimeInterval(-settings.ttl.seconds)
        let held = memory.nearest(latitude: latitude, longitude: longitude, within: reach, freshSince: freshSince, excluding: own)
        if let fresh = held.fresh { return Answer(forecast: fresh.forecast, provenance: .neighbour, kilometres: fresh.kilometres) }
        var stored: (fresh: WeatherStore.NearbyCell?, any: WeatherStore.NearbyCell?) = (nil, nil)
        do {
            stored = try await store.nearbyCells(latitude: latitude, longitude: longitude, within: reach, freshSince: freshSince, excluding: own)
        } catch {
            logger.warning("could not look for a neighbouring forecast", metadata: ["error": "\(error)"])
        }
        if let fresh = stored.fresh, let forecast = await storedForecast(fresh.cell), isFresh(forecast, now: now) {
            return Answer(forecast: forecast, provenance: .neighbour, kilometres: fresh.kilometres)
        }
        var best = held.any.map { (forecast: $0.forecast, kilometres: $0.kilometres) }
        if let any = stored.any, any.kilometres < best?.kilometres ?? .infinity, let forecast = await storedForecast(any.cell) {
            best = (forecast, any.kilometres)
        }
        guard let best else { return nil }
        return Answer(forecast: best.forecast, provenance: isFresh(best.forecast, now: now) ? .neighbour : .neighbourStale, kilometres: best.kilometres)
    }
}
