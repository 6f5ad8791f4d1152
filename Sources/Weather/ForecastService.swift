import Basics
import Feature
import Foundation
import Geography
import Identity
import Limits
import Logging
import METNorway
import Metrics
import OnDemand
import Scheduling

/// Point forecasts by grid cell, kind to FMI: the own cell's forecast is the ``OnDemandCore``'s (its memory, then
/// PostgreSQL — fresh for `ttl` —, then FMI, only with a token from the budget and this client's share of it, one
/// call per cell at a time, stale while FMI cannot be asked); what follows is this service's policy over the core's
/// results.
///
/// When the point's own cell has no fresh forecast and FMI cannot be asked (no token, or FMI failed), the
/// answer degrades instead of failing, in this order of preference:
/// 1. the own cell's forecast, fresh (`own`);
/// 2. the own cell's forecast, older than the TTL (`stale`);
/// 3. the nearest cell within `neighbourKilometres` with a fresh forecast (`neighbour`), the engine's memory then
///    PostgreSQL — the engine's two nearest lookups;
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

    /// No forecast within reach: why, `Retry-After`, and whose doing — FMI or everyone's budget (`503`), this client's
    /// share (`429`), a credential it lacks (`401`): the engine's one rule (``OnDemandUnavailable/httpError(_:)``).
    public typealias Unavailable = OnDemandUnavailable

    public struct Settings: Sendable {
        /// How long a fetched forecast counts as fresh.
        public var ttl: Duration
        /// How far a neighbouring cell's forecast may stand in; `0` turns neighbours off.
        public var neighbourKilometres: Double
        public var budget: BudgetSettings
        /// How old (since its fetch) a stale FMI forecast may be and still be preferred over MET Norway's.
        public var preferStaleFMI: Duration
        /// What the forecasts held in memory may take, with their encodings (half of `PIER_WEATHER_CACHE_MB`).
        public var memoryBytes: Int

        public init(
            ttl: Duration = .seconds(3600), neighbourKilometres: Double = 10, budget: BudgetSettings = .init(),
            preferStaleFMI: Duration = .seconds(3 * 3600), memoryBytes: Int = WeatherFeature.Settings.defaultCacheBytes / 2
        ) {
            self.ttl = ttl
            self.neighbourKilometres = neighbourKilometres
            self.budget = budget
            self.preferStaleFMI = preferStaleFMI
            self.memoryBytes = memoryBytes
        }
    }

    /// Retry-After when no recent forecast is held and MET Norway cannot answer either.
    static let retryAfterFailure = 60

    public let settings: Settings
    /// The own cell's forecasts: FMI through the engine (``FMIForecastSource``).
    let core: OnDemandCore<FMIForecastSource>
    /// FMI's budget and pause, shared with what else asks FMI for a forecast (place names).
    public var upstream: OnDemandUpstream { core.upstream }
    /// FMI's `/health` state (reachable, last error), which place lookups report into too: one upstream, one state.
    let report = UpstreamReport(source: "forecast", board: nil)
    public var budget: SpenderBudget { upstream.limits.budget }
    private let store: WeatherStore
    /// MET Norway, when FMI cannot answer; `nil`: never.
    public let fallback: METNorwayFallback?
    private let logger: Logger
    /// ``Settings/ttl`` in seconds, once (a `Duration`'s components were asked on every cached answer).
    private let ttlSeconds: TimeInterval

    public init(
        client: FMIClient, store: WeatherStore, settings: Settings = Settings(),
        fallback: METNorwayFallback? = nil, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 },
        metrics: MetricsRegistry? = nil, spenders: Spenders = Spenders(), logger: Logger = Logger(label: "pier.weather")
    ) {
        self.store = store
        self.fallback = fallback
        self.settings = settings
        ttlSeconds = settings.ttl.seconds
        self.logger = logger
        var upstream = OnDemandUpstream.Settings(budget: settings.budget)
        // A refused cell is served by a neighbour's forecast or MET Norway's: no waiting for a token.
        upstream.waiting = .never
        core = OnDemandCore(
            kind: "fmi-forecast", source: FMIForecastSource(client: client, store: store, ttl: settings.ttl),
            upstream: OnDemandUpstream(name: "FMI", metric: "fmi", settings: upstream, quota: nil, clock: clock, metrics: metrics, spenders: spenders),
            report: report,
            settings: OnDemandSettings(provisional: .seconds(Double(WeatherRoutes.provisionalSeconds)), retryAfterFailure: Self.retryAfterFailure),
            memoryBytes: settings.memoryBytes, metrics: metrics)
    }

    /// FMI as the engine shows every upstream (`upstream`, `paused_s`, `budget`), weather's memory (`forecast_cache`)
    /// and MET Norway's `metno` when it stands in: the `weather` source's members of `/health`.
    func health(cache: CacheFigures) -> MergedObject {
        MergedObject([Health(fmi: core.health(), forecastCache: cache), fallback?.health()])
    }

    struct Health: Encodable, Sendable {
        let fmi: MergedObject
        let forecastCache: CacheFigures

        enum CodingKeys: String, CodingKey {
            case fmi, forecastCache = "forecast_cache"
        }
    }

    /// Weather's memory: the forecasts the engine holds (with their encodings) and the answers ready for points (the
    /// route's) together in `bytes`, `budget_bytes` and `entries`; `forecasts` and `evictions` the engine's alone.
    struct CacheFigures: Encodable, Sendable {
        let bytes: Int
        let budgetBytes: Int
        let entries: Int
        let forecasts: Int
        let evictions: Int

        enum CodingKeys: String, CodingKey {
            case bytes, budgetBytes = "budget_bytes", entries, forecasts, evictions
        }
    }

    /// The forecasts memory holds: bytes (with their encodings), their bound, how many, and how many left for space.
    var memory: (bytes: Int, budgetBytes: Int, forecasts: Int, evictions: Int) {
        (core.bytes, core.budgetBytes, core.count, core.evictions)
    }

    /// The point's own cell's forecast while it is fresh in memory (the route's hit, before it works out who asks).
    public func cachedAnswer(at point: Coordinate, now: Date = Date()) -> Answer? {
        guard let forecast = cachedForecast(for: GridCell(latitude: point.latitude, longitude: point.longitude), now: now) else { return nil }
        core.countHit()
        return Answer(forecast: forecast, provenance: .own)
    }

    /// The forecast for a point (see the type's order of preference), or ``Unavailable``.
    /// - Parameter client: who asks, for the per-client share of the budget; `nil` counts only the shared budget.
    public func forecast(at point: Coordinate, client: Spender? = nil, now: Date = Date()) async throws -> Answer {
        try await forecast(latitude: point.latitude, longitude: point.longitude, client: client, now: now)
    }

    private func forecast(latitude: Double, longitude: Double, client: Spender?, now: Date) async throws -> Answer {
        let cell = GridCell(latitude: latitude, longitude: longitude)
        if let fresh = cachedForecast(for: cell, now: now) { return Answer(forecast: fresh, provenance: .own) }
        // The cell's claim is held until MET Norway has answered too: the requests for the cell that arrive meanwhile
        // share FMI's failure and join MET's call, however fast FMI failed, rather than each spending its share on FMI.
        return try await core.outcome(for: cell, client: client, now: now) { own in
            try await forecast(own, cell: cell, latitude: latitude, longitude: longitude, client: client, now: now)
        }
    }

    /// The answer once the own cell's outcome is known (see the type's order of preference).
    private func forecast(
        _ own: OnDemandOutcome<Forecast>, cell: GridCell, latitude: Double, longitude: Double, client: Spender?, now: Date
    ) async throws -> Answer {
        // An FMI forecast older than MET Norway's would be, kept for when MET cannot answer either.
        var older: Answer?
        let unavailable: Unavailable
        switch own {
        case .answer(let own) where !own.stale:
            return Answer(forecast: own.value, provenance: .own)
        case .answer(let own):
            let answer = Answer(forecast: own.value, provenance: .stale)
            // A client refused for its own share is not sent to MET: it is asked to slow down, not given another upstream.
            if fallback == nil || own.staleBecause?.cause != .upstream || isRecent(own.value, now: now) { return answer }
            older = answer
            unavailable = Unavailable("no recent forecast for this point", retryAfter: Self.retryAfterFailure)
        case .unavailable(let reason):
            unavailable = reason.saying("no forecast within reach of this point yet")
            let mine = reason.cause != .upstream
            if let nearby = await neighbour(latitude: latitude, longitude: longitude, excluding: cell, now: now) {
                if fallback == nil || mine || nearby.provenance == .neighbour || isRecent(nearby.forecast, now: now) { return nearby }
                older = nearby
            }
            if mine { throw unavailable }
        }
        if let found = await fallback?.forecast(for: cell.metNorwayPoint, client: client, now: now) {
            let forecast = Forecast(cell: cell, fetchedAt: found.fetchedAt, metNorway: found.forecast)
            if !forecast.series.isEmpty { return Answer(forecast: forecast, provenance: found.stale ? .metNorwayStale : .metNorway) }
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

    /// The fresh forecast memory holds for the cell, without waiting (the route's fast path).
    public func cachedForecast(for cell: GridCell, now: Date = Date()) -> Forecast? {
        guard let held = core.heldAnswer(cell)?.value, isFresh(held, now: now) else { return nil }
        return held
    }

    func isFresh(_ forecast: Forecast, now: Date) -> Bool {
        isFresh(fetchedAt: forecast.fetchedAt, now: now)
    }

    /// Whether a forecast fetched at `fetchedAt` is within the TTL.
    public func isFresh(fetchedAt: Date, now: Date) -> Bool {
        now.timeIntervalSince(fetchedAt) < ttlSeconds
    }

    /// The moment a forecast fetched at `fetchedAt` stops being fresh.
    func freshUntil(fetchedAt: Date) -> Date {
        fetchedAt.addingTimeInterval(ttlSeconds)
    }

    // MARK: The own cell

    /// The newest forecast held for a neighbouring cell, memory or PostgreSQL, of any age. The read is the engine's:
    /// one per cell at a time, shared with the requests for that cell; a PostgreSQL error counts as nothing stored.
    private func storedForecast(_ cell: GridCell) async -> Forecast? {
        let held = core.heldAnswer(cell)?.value
        let stored = await core.storedAnswer(cell)?.value
        guard let held else { return stored }
        guard let stored else { return held }
        return stored.fetchedAt > held.fetchedAt ? stored : held
    }

    /// A forecast another FMI call brought (a place's): stored and held for its cell like one of ours.
    public func adopt(_ forecast: Forecast) async {
        await core.adopt(forecast, for: forecast.cell, fetchedAt: forecast.fetchedAt)
    }

    // MARK: Neighbours

    /// The nearest other cell with a fresh forecast within reach (memory, then PostgreSQL), else the nearest
    /// with any forecast.
    private func neighbour(latitude: Double, longitude: Double, excluding own: GridCell, now: Date) async -> Answer? {
        let reach = settings.neighbourKilometres
        guard reach > 0 else { return nil }
        let freshSince = now.addingTimeInterval(-settings.ttl.seconds)
        var held: (fresh: OnDemandCore<FMIForecastSource>.Nearby?, any: OnDemandCore<FMIForecastSource>.Nearby?) = (nil, nil)
        if let point = Coordinate(latitude: latitude, longitude: longitude) {
            held = core.nearestHeld(to: point, within: reach, freshSince: freshSince, excluding: own)
        }
        if let fresh = held.fresh { return Answer(forecast: fresh.answer.value, provenance: .neighbour, kilometres: fresh.kilometres) }
        var stored: (fresh: WeatherStore.NearbyCell?, any: WeatherStore.NearbyCell?) = (nil, nil)
        do {
            stored = try await store.nearbyCells(latitude: latitude, longitude: longitude, within: reach, freshSince: freshSince, excluding: own)
        } catch {
            logger.warning("could not look for a neighbouring forecast", metadata: ["error": "\(error)"])
        }
        if let fresh = stored.fresh, let forecast = await storedForecast(fresh.cell), isFresh(forecast, now: now) {
            return Answer(forecast: forecast, provenance: .neighbour, kilometres: fresh.kilometres)
        }
        var best = held.any.map { (forecast: $0.answer.value, kilometres: $0.kilometres) }
        if let any = stored.any, any.kilometres < best?.kilometres ?? .infinity, let forecast = await storedForecast(any.cell) {
            best = (forecast, any.kilometres)
        }
        guard let best else { return nil }
        return Answer(forecast: best.forecast, provenance: isFresh(best.forecast, now: now) ? .neighbour : .neighbourStale, kilometres: best.kilometres)
    }
}
