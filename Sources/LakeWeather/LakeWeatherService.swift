import Basics
import Feature
import Fetching
import Foundation
import Logging
import Metrics

/// OpenWeather forecasts per grid cell, shared by every user: memory, then PostgreSQL (another replica may
/// have asked), then the upstream — through an ``UpstreamGate`` (a per-minute budget with each client's
/// share, one call per cell at a time, a pause when OpenWeather refuses the key or blocks the account) and a
/// ``DailyQuota`` counted in PostgreSQL.
///
/// A forecast is fresh for ``Settings/ttl`` (never below ten minutes: OpenWeather's model updates no more
/// often). When the upstream cannot be asked or fails, the last good forecast is served marked stale for
/// ``Settings/provisional`` before the upstream is tried again; with nothing stored, `503` (`429` when it is
/// this client's share that is spent) with `Retry-After`.
public final class LakeWeatherService<Prepared: Sendable>: Sendable {
    public struct Settings: Sendable {
        /// `PIER_OPENWEATHER_TTL_S`.
        public var ttl: Duration = .seconds(1800)
        /// `PIER_OPENWEATHER_CELL_DEG`.
        public var cellDegrees = 0.05
        /// `PIER_OPENWEATHER_REQUESTS_PER_MINUTE`, `…_BURST`, `…_CLIENT_SHARE` (the free plan allows 60 a minute).
        public var budget = RequestBudget<IPAddress>.Settings(ratePerMinute: 50, burst: 10, clientShare: 0.25)
        /// `PIER_OPENWEATHER_REQUESTS_PER_DAY` (the free plan's 1,000,000 a month is ~33,000 a day); `nil`: no quota.
        public var perDay: Int? = 30_000
        /// `PIER_LAKE_WEATHER_CACHE_MB`.
        public var cacheBytes = 32 << 20
        /// How long a stale answer is reused before the upstream is asked again.
        public var provisional: Duration = .seconds(60)
        /// `Retry-After` after a failure.
        public var retryAfterFailure = 60
        /// No calls for this long after OpenWeather refused the key (`401`) or blocked the account (`429`
        /// without `Retry-After`): asking again at once would only prolong a block.
        public var pauseAfterRefusal = 600

        /// OpenWeather updates its model at most every ten minutes.
        public static var minimumTTL: Duration { .seconds(600) }

        public init() {}
    }

    struct Held: Sendable {
        var document: ForecastDocument
        var fetchedAt: Date
        var until: Date
        var stale: Bool
        var response: Prepared
        var bytes: Int
    }

    private enum Fetched: Sendable {
        case forecast(ForecastDocument, fetchedAt: Date)
        case failed(String, retryAfter: Int)
    }

    public static var source: String { "lake-weather" }

    public let settings: Settings
    private let gate: UpstreamGate<ForecastCell, IPAddress, Fetched>
    private let quota: DailyQuota?
    private let client: OpenWeatherClient
    private let store: LakeWeatherStore
    private let memory: LRUCache<ForecastCell, Held>
    private let prepare: @Sendable (LakeWeatherAnswer) -> Prepared
    private let loading = SingleFlight<ForecastCell, LakeWeatherStore.Stored?>()
    private let report: UpstreamReport
    private let runner: FetchRunner?
    private let hits: Counter?, misses: Counter?, upstreamCalls: Counter?, staleAnswers: Counter?, unavailableAnswers: Counter?
    private let droppedSlots: Counter?
    private let refusals: RefusalCounters
    private let logger: Logger

    public init(
        client: OpenWeatherClient, store: LakeWeatherStore, quota: DailyQuota?, settings: Settings = Settings(), board: SourceStatusBoard? = nil,
        runner: FetchRunner? = nil, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 },
        metrics: MetricsRegistry? = nil, logger: Logger = Logger(label: "pier.lake-weather"),
        prepare: @escaping @Sendable (LakeWeatherAnswer) -> Prepared
    ) {
        var settings = settings
        if settings.ttl < Settings.minimumTTL { settings.ttl = Settings.minimumTTL }
        self.settings = settings
        self.client = client
        self.store = store
        self.quota = quota
        report = UpstreamReport(source: Self.source, board: board)
        self.runner = runner
        self.prepare = prepare
        self.logger = logger
        gate = UpstreamGate(budget: settings.budget, clock: clock)
        memory = LRUCache(budgetBytes: settings.cacheBytes)
        hits = metrics?.counter("pier_lake_weather_cache_hits_total", help: "Lake weather answers served from memory.")
        misses = metrics?.counter("pier_lake_weather_cache_misses_total", help: "Lake weather requests memory could not answer.")
        upstreamCalls = metrics?.counter("pier_openweather_requests_total", help: "Requests made to OpenWeather.")
        staleAnswers = metrics?.counter("pier_lake_weather_stale_total", help: "Lake weather answers served stale.")
        unavailableAnswers = metrics?.counter("pier_lake_weather_unavailable_total", help: "Lake weather requests answered 503 or 429 (nothing stored).")
        droppedSlots = metrics?.counter(
            "pier_openweather_slots_dropped_total", help: "Forecast slots left out because the app could not decode them (no wind.deg, …).")
        refusals = RefusalCounters(
            metrics: metrics, name: "pier_openweather_refusals_total",
            help: "Lake weather requests not sent to OpenWeather: budget, client share, pause or daily quota.",
            reasons: UpstreamGate<ForecastCell, IPAddress, Fetched>.Refusal.allCases.map(\.rawValue) + ["daily_quota"])
        if let metrics {
            let memory = memory
            metrics.gauge("pier_lake_weather_cache_bytes", help: "Bytes of lake weather answers held in memory.") { Double(memory.bytes) }
            if let quota {
                metrics.gauge("pier_openweather_quota_left_today", help: "OpenWeather requests left today (all replicas).") {
                    let snapshot = quota.snapshot()
                    return Double(snapshot.limit - (snapshot.used ?? 0))
                }
            }
        }
    }

    public func load() async throws {
        try await quota?.load()
        if let last = try await store.lastFetch() {
            report.stored(lastSuccess: last)
        }
    }

    public func cell(for point: Coordinate) -> ForecastCell {
        ForecastCell(point, size: settings.cellDegrees)
    }

    /// The answer held in memory while it holds (the route's fast path); `nil` when PostgreSQL or the upstream must be asked.
    public func cachedResponse(for cell: ForecastCell, now: Date = Date()) -> Prepared? {
        guard let held = memory[cell], now < held.until else { return nil }
        hits?.increment()
        return held.response
    }

    public func response(for cell: ForecastCell, client: IPAddress?, now: Date = Date()) async -> Prepared {
        if let cached = cachedResponse(for: cell, now: now) { return cached }
        misses?.increment()
        let stored = await loading.value(for: cell) { [store, logger] in
            do { return try await store.forecast(for: cell) } catch {
                logger.warning("could not read a stored forecast", metadata: ["cell": "\(cell)", "error": "\(error)"])
                return nil
            }
        }
        var last: (document: ForecastDocument, fetchedAt: Date)?
        if let stored, let document = try? ForecastDocument(parsing: stored.body) { last = (document, stored.fetchedAt) }
        // Memory may hold a newer forecast than PostgreSQL (its write failed).
        if let held = memory.peek(cell), held.fetchedAt > last?.fetchedAt ?? .distantPast { last = (held.document, held.fetchedAt) }
        if let last, now.timeIntervalSince(last.fetchedAt) < settings.ttl.seconds {
            return remember(last.document, fetchedAt: last.fetchedAt, stale: false, cell: cell, now: now).response
        }
        let outcome = await gate.call(cell, client: client) { [self] in
            // A call for this cell may have landed between our look at memory and this one starting.
            if let held = memory.peek(cell), !held.stale, now < held.until { return .forecast(held.document, fetchedAt: held.fetchedAt) }
            if let quota, case .spent(let retryAfter) = await quota.take(now: now) {
                refusals.count("daily_quota")
                return .failed("OpenWeather's daily quota for this server is spent", retryAfter: retryAfter)
            }
            return await fetch(cell)
        }
        let reason: String
        let retryAfter: Int
        var clientShare = false
        switch outcome {
        case .answered(.forecast(let document, let fetchedAt)):
            if let held = memory.peek(cell), held.fetchedAt == fetchedAt, !held.stale { return held.response }
            return remember(document, fetchedAt: fetchedAt, stale: false, cell: cell, now: now).response
        case .answered(.failed(let why, let seconds)):
            (reason, retryAfter) = (why, seconds)
        case .refused(let refusal, let seconds):
            (reason, retryAfter, clientShare) = refusals.refused(refusal, retryAfter: seconds, upstream: "OpenWeather")
        }
        if let last {
            staleAnswers?.increment()
            return remember(last.document, fetchedAt: last.fetchedAt, stale: true, cell: cell, now: now).response
        }
        unavailableAnswers?.increment()
        return prepare(.unavailable(reason: "no lake weather available for this point: \(reason)", retryAfter: retryAfter, clientShare: clientShare))
    }

    /// One upstream call (the caller holds a token and a unit of the quota): check, store, remember.
    private func fetch(_ cell: ForecastCell) async -> Fetched {
        upstreamCalls?.increment()
        let answer: OpenWeatherClient.Answer? = await FetchRunner.capturingFailures(runner, of: Self.source) { [self] in
            do {
                return (try await client.forecast(for: cell), nil)
            } catch {
                logger.warning("OpenWeather failed", metadata: ["url": "\(client.displayURL(for: cell))", "error": "\(error)"])
                report.failed(error, isAnswer: error is ForecastDocument.Problem)
                return (nil, "\(error)")
            }
        }
        let fetched: Fetched? = answer.map { answer -> Fetched in
            switch answer {
            case .forecast(let document): return .forecast(document, fetchedAt: Date())
            case .unauthorized:
                gate.pause(seconds: Double(settings.pauseAfterRefusal))
                logger.error("OpenWeather refused the key (401); pausing calls", metadata: ["pause_s": "\(settings.pauseAfterRefusal)"])
                report.answered(error: "401: OpenWeather refused the key (pausing \(settings.pauseAfterRefusal) s)")
                return .failed("OpenWeather refused this server's key", retryAfter: settings.pauseAfterRefusal)
            case .rateLimited(let seconds):
                let pause = min(RetryAfter.limit, seconds ?? settings.pauseAfterRefusal)
                gate.pause(seconds: Double(pause))
                logger.warning("OpenWeather answered 429; pausing calls", metadata: ["pause_s": "\(pause)"])
                report.answered(error: "429: OpenWeather blocked the account (pausing \(pause) s)")
                return .failed("OpenWeather is rate-limiting this server (429)", retryAfter: max(1, pause))
            }
        }
        guard let fetched else { return .failed("OpenWeather failed", retryAfter: settings.retryAfterFailure) }
        guard case .forecast(let document, let fetchedAt) = fetched else { return fetched }
        report.answered()
        if !document.dropped.isEmpty {
            droppedSlots?.increment(by: UInt64(document.dropped.count))
            logger.info(
                "forecast slots the app cannot decode were left out",
                metadata: ["cell": "\(cell)", "dropped": "\(document.dropped.count)", "why": "\(document.dropped[0])"])
        }
        do {
            try await store.store(document.body, for: cell, fetchedAt: fetchedAt)
        } catch {
            logger.warning("could not store a forecast; serving it anyway", metadata: ["error": "\(error)"])
        }
        _ = remember(document, fetchedAt: fetchedAt, stale: false, cell: cell, now: fetchedAt)
        return fetched
    }

    private func remember(_ document: ForecastDocument, fetchedAt: Date, stale: Bool, cell: ForecastCell, now: Date) -> Held {
        let until = stale ? now.addingTimeInterval(settings.provisional.seconds) : fetchedAt.addingTimeInterval(settings.ttl.seconds)
        let body = document.rendered(daily: DailySummary.json(DailySummary.days(document.slots, utcOffset: document.utcOffset)))
        let held = Held(
            document: document, fetchedAt: fetchedAt, until: until, stale: stale,
            response: prepare(.forecast(body: body, freshFor: max(0, Int(until.timeIntervalSince(now).rounded())), stale: stale)),
            bytes: body.count)
        memory.set(held, for: cell, cost: document.body.count + held.bytes + 256)
        return held
    }

    /// Members of the `lake-weather` source's `/health` object.
    public func healthJSON() -> String {
        report.healthMembers(gate: gate, quota: quota) + ",\"cache\":{\"bytes\":\(memory.bytes),\"entries\":\(memory.count)}"
    }
}
