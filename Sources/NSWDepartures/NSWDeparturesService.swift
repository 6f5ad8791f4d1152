import Basics
import Fetching
import Foundation
import Logging
import Metrics

/// Sydney departures from TfNSW's `departure_mon`, shared by every phone and widget: memory, then PostgreSQL
/// (another replica may have asked), then the upstream — one call per stop at a time (every mode; the mode is
/// filtered from Pier's copy), through an ``UpstreamGate`` (calls per second, each client's share, a pause when
/// TfNSW throttles or refuses) and a ``DailyQuota`` counted in PostgreSQL and reset at midnight in Sydney.
///
/// An answer is fresh for ``Settings/ttl`` at best; when many stops are watched, longer, so the quota lasts the
/// day (``QuotaSpreading``). Every answer — fresh or stale — leaves out the departures that have left: a
/// rendering is kept until its next departure leaves, then made again from the same data. When TfNSW cannot
/// be asked or fails, the last good answer is served stale for ``Settings/provisional`` at a time, while a
/// departure in it is still to come; otherwise `503` (`429` when this client's share is spent) + `Retry-After`.
public final class NSWDeparturesService<Prepared: Sendable>: Sendable {
    public struct Settings: Sendable {
        /// `PIER_NSW_TTL_S`: freshness at best (real-time data changes by the minute).
        public var ttl: Duration = .seconds(30)
        /// `PIER_NSW_REQUESTS_PER_SECOND` (× 60), `PIER_NSW_BURST`, `PIER_NSW_CLIENT_SHARE`: under the Bronze plan's 5 a second;
        /// a client may start two calls at once (the app shows a bus and a light-rail stop).
        public var budget = RequestBudget<IPAddress>.Settings(ratePerMinute: 240, burst: 4, clientShare: 0.5)
        /// `PIER_NSW_REQUESTS_PER_DAY` (the Bronze plan allows 60,000; some room is left for the key's other
        /// uses and the replicas' races); `nil`: no quota.
        public var perDay: Int? = 50_000
        /// `PIER_NSW_CACHE_MB`: ~56 KB a stop (its departures and up to three modes' answers), so ~1,000 stops;
        /// a stop that left memory costs a PostgreSQL read, not an upstream call.
        public var cacheBytes = 64 << 20
        /// How long a stale answer is served before TfNSW is asked again.
        public var provisional: Duration = .seconds(15)
        /// `Retry-After` after a failure.
        public var retryAfterFailure = 30
        /// A pause after `403 Account Over Rate Limit` or `429` without `Retry-After`.
        public var pauseAfterThrottle = 5
        /// A pause after the key was refused (`401`, another `403`): asking again at once cannot help.
        public var pauseAfterKeyRefused = 600
        /// How long a stop TfNSW does not know is remembered.
        public var unknownStopTTL: Duration = .seconds(3600)
        /// Stops asked within this long count as watched when the quota is spread (at least twice the freshness).
        public var watchWindow: Duration = .seconds(900)

        public init() {}
    }

    struct Board: Sendable {
        /// `nil`: TfNSW knows no such stop.
        var departures: [Departure]?
        var fetchedAt: Date
        /// Fresh (or, when stale, served) until then; afterwards PostgreSQL and the upstream are asked.
        var until: Date
        var stale: Bool
    }

    struct Rendering: Sendable {
        var response: Prepared
        var fetchedAt: Date
        var until: Date
    }

    struct RenderingKey: Hashable, Sendable {
        var request: String
        var mode: TransportMode?
    }

    private enum Fetched: Sendable {
        case departures([Departure], fetchedAt: Date)
        case unknownStop(fetchedAt: Date)
        case failed(String, retryAfter: Int)
    }

    public static var source: String { "nsw" }
    static var sydney: TimeZone { DepartureQuery.sydney }

    public let settings: Settings
    private let gate: UpstreamGate<String, IPAddress, Fetched>
    private let quota: DailyQuota?
    private let client: TfNSWClient
    private let store: NSWDeparturesStore
    private let boards: LRUCache<String, Board>
    private let renderings: LRUCache<RenderingKey, Rendering>
    private let watched = WatchedStops()
    private let currentTTL: SharedValue<Double>
    private let prepare: @Sendable (NSWDeparturesAnswer) -> Prepared
    private let loading = SingleFlight<String, NSWDeparturesStore.Stored?>()
    private let report: UpstreamReport
    private let runner: FetchRunner?
    private let hits: Counter?, misses: Counter?, upstreamCalls: Counter?, staleAnswers: Counter?, unavailableAnswers: Counter?
    private let droppedEvents: Counter?
    private let refusals: RefusalCounters
    private let logger: Logger

    public init(
        client: TfNSWClient, store: NSWDeparturesStore, quota: DailyQuota?, settings: Settings = Settings(), board: SourceStatusBoard? = nil,
        runner: FetchRunner? = nil, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 },
        metrics: MetricsRegistry? = nil, logger: Logger = Logger(label: "pier.nsw"),
        prepare: @escaping @Sendable (NSWDeparturesAnswer) -> Prepared
    ) {
        self.settings = settings
        self.client = client
        self.store = store
        self.quota = quota
        report = UpstreamReport(source: Self.source, board: board)
        self.runner = runner
        self.prepare = prepare
        self.logger = logger
        currentTTL = SharedValue(settings.ttl.seconds)
        gate = UpstreamGate(budget: settings.budget, clock: clock)
        boards = LRUCache(budgetBytes: settings.cacheBytes / 2)
        renderings = LRUCache(budgetBytes: settings.cacheBytes / 2)
        hits = metrics?.counter("pier_nsw_cache_hits_total", help: "Sydney departure answers served from memory.")
        misses = metrics?.counter("pier_nsw_cache_misses_total", help: "Sydney departure requests memory could not answer.")
        upstreamCalls = metrics?.counter("pier_tfnsw_requests_total", help: "Requests made to TfNSW's departure_mon.")
        staleAnswers = metrics?.counter("pier_nsw_stale_total", help: "Sydney departure answers served stale.")
        unavailableAnswers = metrics?.counter("pier_nsw_unavailable_total", help: "Sydney departure requests answered 503 or 429 (nothing to serve).")
        droppedEvents = metrics?.counter(
            "pier_tfnsw_events_dropped_total", help: "departure_mon events left out because they could not be read (no planned time, …).")
        refusals = RefusalCounters(
            metrics: metrics, name: "pier_tfnsw_refusals_total",
            help: "Sydney departure requests not sent to TfNSW: budget, client share, pause or daily quota.",
            reasons: UpstreamGate<String, IPAddress, Fetched>.Refusal.allCases.map(\.rawValue) + ["daily_quota"])
        if let metrics {
            let boards = boards, renderings = renderings, currentTTL = currentTTL
            metrics.gauge("pier_nsw_cache_bytes", help: "Bytes of Sydney departure answers held in memory.") { Double(boards.bytes + renderings.bytes) }
            metrics.gauge("pier_nsw_ttl_seconds", help: "How long a stop's departures stay fresh now (stretched so the daily quota lasts).") {
                currentTTL.value
            }
            if let quota {
                metrics.gauge("pier_tfnsw_quota_left_today", help: "TfNSW requests left today, Sydney time (all replicas).") {
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

    /// The answer held in memory while it holds (the route's fast path) — made again from the data in memory
    /// when a departure in it has left; `nil` when PostgreSQL or the upstream must be asked.
    public func cachedResponse(for query: DepartureQuery, now: Date = Date()) -> Prepared? {
        let key = RenderingKey(request: query.key, mode: query.mode)
        if let rendering = renderings[key], now < rendering.until {
            hits?.increment()
            return rendering.response
        }
        guard let held = boards.peek(query.key), now < held.until, !held.stale || Self.hasDepartures(held.departures, after: now) else { return nil }
        hits?.increment()
        return render(held, query: query, now: now)
    }

    public func response(for query: DepartureQuery, client: IPAddress?, now: Date = Date()) async -> Prepared {
        if let cached = cachedResponse(for: query, now: now) { return cached }
        misses?.increment()
        let key = query.key
        let ttl = freshness(noting: key, now: now)
        let stored = await loading.value(for: key) { [store, logger] in
            do { return try await store.answer(for: key) } catch {
                logger.warning("could not read stored departures", metadata: ["key": "\(key)", "error": "\(error)"])
                return nil
            }
        }
        // The newest answer known, from memory or PostgreSQL (memory may hold a newer one: its write failed).
        var last = stored.map { Board(departures: $0.departures, fetchedAt: $0.fetchedAt, until: $0.fetchedAt, stale: false) }
        if let held = boards.peek(key), held.fetchedAt > last?.fetchedAt ?? .distantPast { last = held }
        if let last {
            let lifetime = last.departures == nil ? settings.unknownStopTTL.seconds : ttl
            if now.timeIntervalSince(last.fetchedAt) < lifetime {
                return remember(last.departures, fetchedAt: last.fetchedAt, until: last.fetchedAt.addingTimeInterval(lifetime), stale: false, query: query, now: now)
            }
        }
        let outcome = await gate.call(key, client: client) { [self] in
            // A call for this stop may have landed between our look at memory and this one starting.
            if let held = boards.peek(key), !held.stale, now < held.until {
                return held.departures.map { .departures($0, fetchedAt: held.fetchedAt) } ?? .unknownStop(fetchedAt: held.fetchedAt)
            }
            if let quota, case .spent(let retryAfter) = await quota.take(now: now) {
                refusals.count("daily_quota")
                return .failed("TfNSW's daily quota for this server is spent (it resets at midnight in Sydney)", retryAfter: RetryAfter.seconds(Double(retryAfter)))
            }
            return await fetch(query, ttl: ttl)
        }
        let reason: String
        let retryAfter: Int
        var clientShare = false
        switch outcome {
        case .answered(.departures(let departures, let fetchedAt)):
            // Everyone who joined the call shares one rendering.
            if let rendering = renderings.peek(RenderingKey(request: key, mode: query.mode)), rendering.fetchedAt == fetchedAt, now < rendering.until {
                return rendering.response
            }
            return remember(departures, fetchedAt: fetchedAt, until: fetchedAt.addingTimeInterval(ttl), stale: false, query: query, now: now)
        case .answered(.unknownStop(let fetchedAt)):
            return remember(nil, fetchedAt: fetchedAt, until: fetchedAt.addingTimeInterval(settings.unknownStopTTL.seconds), stale: false, query: query, now: now)
        case .answered(.failed(let why, let seconds)):
            (reason, retryAfter) = (why, seconds)
        case .refused(let refusal, let seconds):
            (reason, retryAfter, clientShare) = refusals.refused(refusal, retryAfter: seconds, upstream: "TfNSW")
        }
        // Stale, while a departure in it is still to come (an answer whose departures have all left says nothing).
        if let last, let departures = last.departures, Self.hasDepartures(departures, after: now) {
            return remember(departures, fetchedAt: last.fetchedAt, until: now.addingTimeInterval(settings.provisional.seconds), stale: true, query: query, now: now)
        }
        if let last, last.departures == nil {
            // An unknown stop stays unknown while TfNSW cannot be asked.
            return remember(nil, fetchedAt: last.fetchedAt, until: now.addingTimeInterval(settings.provisional.seconds), stale: true, query: query, now: now)
        }
        unavailableAnswers?.increment()
        return prepare(.unavailable(reason: "no departures available for this stop: \(reason)", retryAfter: retryAfter, clientShare: clientShare))
    }

    /// Notes the stop as watched and returns how long answers are fresh now (the quota spread over the watched stops).
    private func freshness(noting key: String, now: Date) -> Double {
        let seconds = now.timeIntervalSince1970
        watched.note(key, at: seconds)
        guard let quota else { return settings.ttl.seconds }
        let snapshot = quota.snapshot(now: now)
        let day = CalendarDate(now, in: Self.sydney)
        let left = day.adding(days: 1).start(in: Self.sydney).timeIntervalSince(now)
        let window = max(settings.watchWindow.seconds, 2 * currentTTL.value)
        let ttl = QuotaSpreading.ttl(
            base: settings.ttl.seconds, watched: watched.count(at: seconds, window: window), quotaLeft: snapshot.limit - (snapshot.used ?? 0),
            secondsLeftToday: left)
        currentTTL.update { $0 = ttl }
        return ttl
    }

    /// One upstream call (the caller holds a token and a unit of the quota): read, store, remember.
    private func fetch(_ query: DepartureQuery, ttl: Double) async -> Fetched {
        upstreamCalls?.increment()
        let answer: TfNSWClient.Answer? = await FetchRunner.capturingFailures(runner, of: Self.source) { [self] in
            do {
                return (try await client.departures(for: query), nil)
            } catch {
                logger.warning("TfNSW failed", metadata: ["url": "\(client.url(for: query, now: Date()))", "error": "\(error)"])
                report.failed(error, isAnswer: error is DepartureMonitor.Problem)
                return (nil, "\(error)")
            }
        }
        let now = Date()
        switch answer {
        case nil:
            return .failed("TfNSW failed", retryAfter: settings.retryAfterFailure)
        case .keyRefused(let status, let detail)?:
            let pause = settings.pauseAfterKeyRefused
            gate.pause(seconds: Double(pause))
            let why = "\(status): TfNSW refused this server's key\(detail.map { " (\($0))" } ?? "")"
            logger.error("TfNSW refused the key; pausing calls", metadata: ["status": "\(status)", "pause_s": "\(pause)"])
            report.answered(error: "\(why) (pausing \(pause) s)")
            return .failed("TfNSW refused this server's key", retryAfter: pause)
        case .overRate(let seconds)?:
            let pause = min(RetryAfter.limit, max(1, seconds ?? settings.pauseAfterThrottle))
            gate.pause(seconds: Double(pause))
            logger.warning("TfNSW is throttling the key (over its rate limit); pausing calls", metadata: ["pause_s": "\(pause)"])
            report.answered(error: "TfNSW: over the key's rate limit (pausing \(pause) s)")
            return .failed("TfNSW is rate-limiting this server", retryAfter: pause)
        case .overQuota?:
            // Every caller of the key is refused until midnight in Sydney.
            let day = CalendarDate(now, in: Self.sydney)
            let pause = max(1, day.adding(days: 1).start(in: Self.sydney).timeIntervalSince(now).rounded(.up))
            gate.pause(seconds: pause)
            logger.error("TfNSW says the key's daily quota is spent; pausing calls until midnight in Sydney", metadata: ["pause_s": "\(Int(pause))"])
            report.answered(error: "TfNSW: the key's daily quota is spent (pausing \(Int(pause)) s, until midnight in Sydney)")
            return .failed("TfNSW's daily quota for this server is spent (it resets at midnight in Sydney)", retryAfter: RetryAfter.seconds(pause))
        case .monitor(let monitor)?:
            report.answered()
            if !monitor.dropped.isEmpty {
                droppedEvents?.increment(by: UInt64(monitor.dropped.count))
                logger.info(
                    "departure_mon events that could not be read were left out",
                    metadata: ["stop": "\(query.stop)", "dropped": "\(monitor.dropped.count)", "why": "\(monitor.dropped[0])"])
            }
            let departures: [Departure]?
            switch monitor.content {
            case .departures(let list): departures = list
            case .unknownStop: departures = nil
            }
            do {
                try await store.store(departures, for: query.key, fetchedAt: now)
            } catch {
                logger.warning("could not store departures; serving them anyway", metadata: ["error": "\(error)"])
            }
            let lifetime = departures == nil ? settings.unknownStopTTL.seconds : ttl
            keep(Board(departures: departures, fetchedAt: now, until: now.addingTimeInterval(lifetime), stale: false), for: query.key)
            return departures.map { .departures($0, fetchedAt: now) } ?? .unknownStop(fetchedAt: now)
        }
    }

    private func remember(_ departures: [Departure]?, fetchedAt: Date, until: Date, stale: Bool, query: DepartureQuery, now: Date) -> Prepared {
        if departures == nil { watched.forget(query.key) }
        let held = Board(departures: departures, fetchedAt: fetchedAt, until: until, stale: stale)
        keep(held, for: query.key)
        return render(held, query: query, now: now)
    }

    /// Holds `held` for `key`; the renderings of every mode made from other data are dropped with the old board.
    private func keep(_ held: Board, for key: String) {
        let previous = boards.peek(key)
        boards.set(held, for: key, cost: Self.cost(held.departures))
        if let previous, previous.fetchedAt == held.fetchedAt, previous.stale == held.stale { return }
        renderings.remove(RenderingKey(request: key, mode: nil))
        for mode in TransportMode.allCases { renderings.remove(RenderingKey(request: key, mode: mode)) }
    }

    /// The answer for `query` from `held` at `now`, kept until its next departure leaves or `held` runs out.
    private func render(_ held: Board, query: DepartureQuery, now: Date) -> Prepared {
        let response: Prepared
        var until = held.until
        if let departures = held.departures {
            let seconds = Int(now.timeIntervalSince1970.rounded(.down))
            if let next = DepartureList.nextDeparture(departures, mode: query.mode, after: seconds) {
                until = min(until, Date(timeIntervalSince1970: Double(next)))
            }
            let body = DepartureList.json(departures, mode: query.mode, after: seconds)
            let lifetime = max(0, Int(until.timeIntervalSince(held.fetchedAt).rounded(.down)))
            response = prepare(.departures(body: body, fetchedAt: held.fetchedAt, lifetime: lifetime, stale: held.stale))
            if held.stale { staleAnswers?.increment() }
            renderings.set(Rendering(response: response, fetchedAt: held.fetchedAt, until: until), for: RenderingKey(request: query.key, mode: query.mode), cost: body.count + 256)
        } else {
            response = prepare(.unknownStop(query.stop, freshFor: max(0, Int(until.timeIntervalSince(now).rounded(.down)))))
            renderings.set(Rendering(response: response, fetchedAt: held.fetchedAt, until: until), for: RenderingKey(request: query.key, mode: query.mode), cost: 512)
        }
        return response
    }

    /// Whether a departure (of any mode) is still to come.
    private static func hasDepartures(_ departures: [Departure]?, after now: Date) -> Bool {
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        return departures?.contains { $0.departureTime > seconds } ?? false
    }

    /// Memory charged for a board: about what its departures take.
    private static func cost(_ departures: [Departure]?) -> Int {
        (departures?.count ?? 0) * 400 + 256
    }

    /// Members of the `nsw` source's `/health` object.
    public func healthJSON() -> String {
        report.healthMembers(gate: gate, quota: quota) + ",\"ttl_s\":\(Int(currentTTL.value.rounded(.up))),"
            + "\"cache\":{\"bytes\":\(boards.bytes + renderings.bytes),\"entries\":\(renderings.count),\"stops\":\(boards.count)}"
    }
}
