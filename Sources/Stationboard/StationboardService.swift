import Basics
import Fetching
import Foundation
import Logging
import Metrics
import Ships

/// Stationboards from transport.opendata.ch, shared by every user: memory, then PostgreSQL (another replica
/// may have asked), then the upstream — through an ``UpstreamGate`` (a request budget, one call per request
/// key, a pause when the upstream answers `429`).
///
/// An answer is fresh for ``Settings/ttlToday`` when it is today's board (delays change) and ``Settings/ttl``
/// otherwise. When the upstream cannot be asked or fails, the last good answer is served marked stale
/// (`X-Pier-Stale: stationboard`) for ``Settings/provisional`` before the upstream is tried again;
/// with nothing stored, `503` + `Retry-After`. Ship names are added when an answer is rendered, from the
/// ships' ``CourseIndex``, so new ship data shows in the next answer without an upstream call.
///
/// The service speaks domain: it answers ``StationboardAnswer``s, and keeps in memory what the route made of
/// each (`Prepared`, the route's ready-encoded response, made once by `prepare`), so a warm hit costs one lookup.
public final class StationboardService<Prepared: Sendable>: Sendable {
    public struct Settings: Sendable {
        /// How long today's board is fresh (real-time delays).
        public var ttlToday: Duration = .seconds(60)
        /// How long another date's board is fresh.
        public var ttl: Duration = .seconds(1800)
        public var budget = RequestBudget<IPAddress>.Settings(ratePerMinute: 30, burst: 10, clientShare: 0.25)
        /// Bytes of answers kept in memory.
        public var cacheBytes = 64 << 20
        /// How long a stale answer is reused before the upstream is asked again.
        public var provisional: Duration = .seconds(30)
        /// A pause when the upstream says `429` without `Retry-After`, and the `Retry-After` after a failure.
        public var retryAfterFailure = 60

        public init() {}
    }

    /// One request's answer held in memory.
    struct Held: Sendable {
        /// `nil`: the upstream knows no such station.
        var document: StationboardDocument?
        var fetchedAt: Date
        /// Served from memory until then; afterwards PostgreSQL and the upstream are asked.
        var until: Date
        var stale: Bool
        var generation: Int
        var response: Prepared
        /// Bytes of the rendered body (memory is charged for them).
        var renderedBytes: Int
    }

    /// What the upstream call for a request key came to (shared by everyone who joined it).
    private enum Fetched: Sendable {
        case board(StationboardDocument, fetchedAt: Date)
        case unknownStation
        case failed(String, retryAfter: Int)
    }

    public static var source: String { "stationboard" }

    public let settings: Settings
    private let gate: UpstreamGate<String, IPAddress, Fetched>
    private let client: TransportClient
    private let store: StationboardStore
    private let courses: @Sendable () -> CourseIndex
    private let memory: LRUCache<String, Held>
    private let prepare: @Sendable (StationboardAnswer) -> Prepared
    private let loading = SingleFlight<String, StationboardStore.Stored?>()
    private let report: UpstreamReport
    private let timeZone = TimeZone(identifier: "Europe/Zurich") ?? .current
    private let hits: Counter?, misses: Counter?, upstreamCalls: Counter?, staleAnswers: Counter?, unavailableAnswers: Counter?
    private let refusals: RefusalCounters
    private let logger: Logger

    /// - Parameters:
    ///   - courses: the ships' current course index (``ShipService/courses``).
    ///   - board: where upstream successes and failures are recorded for `/health`.
    ///   - prepare: what the route makes of an answer (its response), kept with it in memory.
    public init(
        client: TransportClient, store: StationboardStore, courses: @escaping @Sendable () -> CourseIndex, settings: Settings = Settings(),
        board: SourceStatusBoard? = nil, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 },
        metrics: MetricsRegistry? = nil, logger: Logger = Logger(label: "pier.stationboard"),
        prepare: @escaping @Sendable (StationboardAnswer) -> Prepared
    ) {
        self.prepare = prepare
        self.client = client
        self.store = store
        self.courses = courses
        self.settings = settings
        report = UpstreamReport(source: Self.source, board: board)
        self.logger = logger
        gate = UpstreamGate(budget: settings.budget, clock: clock)
        memory = LRUCache(budgetBytes: settings.cacheBytes)
        hits = metrics?.counter("pier_stationboard_cache_hits_total", help: "Stationboard answers served from memory.")
        misses = metrics?.counter(
            "pier_stationboard_cache_misses_total", help: "Stationboard requests memory could not answer (PostgreSQL or the upstream asked).")
        upstreamCalls = metrics?.counter("pier_transport_requests_total", help: "Requests made to transport.opendata.ch.")
        staleAnswers = metrics?.counter(
            "pier_stationboard_stale_total", help: "Stationboard answers served stale (the upstream failed or could not be asked).")
        unavailableAnswers = metrics?.counter(
            "pier_stationboard_unavailable_total", help: "Stationboard requests answered 503 (nothing stored, the upstream not available).")
        refusals = RefusalCounters(
            metrics: metrics, name: "pier_transport_refusals_total",
            help: "Stationboard requests not sent upstream: budget, client share or the upstream's pause.",
            reasons: UpstreamGate<String, IPAddress, Fetched>.Refusal.allCases.map(\.rawValue))
        if let metrics {
            let memory = memory, budget = gate.budget
            metrics.gauge("pier_stationboard_cache_bytes", help: "Bytes of stationboard answers held in memory.") { Double(memory.bytes) }
            metrics.gauge("pier_stationboard_cache_entries", help: "Stationboard answers held in memory.") { Double(memory.count) }
            metrics.gauge("pier_transport_budget_tokens", help: "Requests to transport.opendata.ch that could be made at once now.") {
                budget.snapshot().tokens
            }
        }
    }

    /// After a restart, `/health` shows when the newest stored answer was fetched.
    public func load() async throws {
        if let last = try await store.lastFetch() {
            report.stored(lastSuccess: last)
        }
    }

    /// The answer held in memory when it still holds (the route's fast path), re-rendered when the ship data
    /// changed since; `nil` when PostgreSQL or the upstream must be asked.
    public func cachedResponse(for query: StationboardQuery, now: Date = Date()) -> Prepared? {
        guard let held = memory[query.key], now < held.until else { return nil }
        hits?.increment()
        return current(held, query: query).response
    }

    /// The answer for `query`: a fresh or stale board, an unknown station, or unavailable (prepared by the route).
    public func response(for query: StationboardQuery, client: IPAddress?, now: Date = Date()) async -> Prepared {
        if let cached = cachedResponse(for: query, now: now) { return cached }
        misses?.increment()
        let key = query.key
        let ttl = ttl(for: query, now: now)
        let held = memory.peek(key)
        let stored = await loading.value(for: key) { [store, logger] in
            do { return try await store.answer(for: query) } catch {
                logger.warning("could not read a stored stationboard", metadata: ["key": "\(key)", "error": "\(error)"])
                return nil
            }
        }
        // The newest good answer known, from memory or PostgreSQL.
        var last: (document: StationboardDocument, fetchedAt: Date)? = held.flatMap { held in held.document.map { ($0, held.fetchedAt) } }
        if let stored, stored.fetchedAt > last?.fetchedAt ?? .distantPast, let document = try? StationboardDocument(parsing: stored.body) {
            last = (document, stored.fetchedAt)
        }
        if let last, now.timeIntervalSince(last.fetchedAt) < ttl.seconds {
            return remember(last.document, fetchedAt: last.fetchedAt, stale: false, query: query, now: now).response
        }
        let outcome = await gate.call(key, client: client) { [self] in
            // A call for this key may have landed between our look at memory and this one starting.
            if let held = memory.peek(key), let document = held.document, !held.stale, now < held.until {
                return .board(document, fetchedAt: held.fetchedAt)
            }
            return await fetch(query, now: now)
        }
        let reason: String
        let retryAfter: Int
        var clientShare = false
        switch outcome {
        case .answered(.board(let document, let fetchedAt)):
            // The call remembered it already; everyone who joined the call shares that rendering.
            if let held = memory.peek(key), held.fetchedAt == fetchedAt, !held.stale { return current(held, query: query).response }
            return remember(document, fetchedAt: fetchedAt, stale: false, query: query, now: now).response
        case .answered(.unknownStation):
            return rememberUnknown(query, now: now).response
        case .answered(.failed(let why, let seconds)):
            (reason, retryAfter) = (why, seconds)
        case .refused(let refusal, let seconds):
            (reason, retryAfter, clientShare) = refusals.refused(refusal, retryAfter: seconds, upstream: "transport.opendata.ch")
        }
        if let last {
            staleAnswers?.increment()
            return remember(last.document, fetchedAt: last.fetchedAt, stale: true, query: query, now: now).response
        }
        unavailableAnswers?.increment()
        return prepare(.unavailable(reason: "no stationboard available for this request: \(reason)", retryAfter: retryAfter, clientShare: clientShare))
    }

    /// One upstream call (the caller holds a token): check, store, remember.
    private func fetch(_ query: StationboardQuery, now: Date) async -> Fetched {
        upstreamCalls?.increment()
        let answer: TransportClient.Answer
        do {
            answer = try await client.stationboard(query)
        } catch {
            logger.warning("transport.opendata.ch failed", metadata: ["url": "\(client.url(for: query))", "error": "\(error)"])
            // Reachable when it answered at all (an error status, an answer that is not a stationboard).
            report.failed(error, isAnswer: error is StationboardDocument.Problem)
            return .failed("transport.opendata.ch failed: \(error)", retryAfter: settings.retryAfterFailure)
        }
        switch answer {
        case .board(let document):
            report.answered()
            let fetchedAt = Date()
            do {
                try await store.store(document.body, for: query, serviceDate: query.serviceDate(today: today(now)), fetchedAt: fetchedAt)
            } catch {
                logger.warning("could not store a stationboard; serving it anyway", metadata: ["error": "\(error)"])
            }
            _ = remember(document, fetchedAt: fetchedAt, stale: false, query: query, now: now)
            return .board(document, fetchedAt: fetchedAt)
        case .unknownStation:
            report.answered()
            return .unknownStation
        case .rateLimited(let seconds):
            let pause = min(RetryAfter.limit, seconds ?? settings.retryAfterFailure)
            gate.pause(seconds: Double(pause))
            logger.warning("transport.opendata.ch answered 429", metadata: ["retry_after": "\(pause)"])
            report.answered(error: "429 Too Many Requests (pausing \(pause) s)")
            return .failed("transport.opendata.ch is rate-limiting (429)", retryAfter: max(1, pause))
        }
    }

    public func today(_ now: Date = Date()) -> CalendarDate {
        CalendarDate(now, in: timeZone)
    }

    /// How long an answer for `query` is fresh: short for today's board, longer for other dates.
    public func ttl(for query: StationboardQuery, now: Date) -> Duration {
        let today = today(now)
        return query.serviceDate(today: today) == today ? settings.ttlToday : settings.ttl
    }

    // MARK: Rendering

    /// `held`, re-rendered (and kept) when the ship data changed since it was rendered.
    private func current(_ held: Held, query: StationboardQuery) -> Held {
        let index = courses()
        guard let document = held.document, held.generation != index.generation else { return held }
        var renewed = held
        renewed.generation = index.generation
        let body = render(document, index: index)
        renewed.response = prepare(.board(body: body, freshFor: max(0, Int(held.until.timeIntervalSinceNow.rounded(.up))), stale: held.stale))
        renewed.renderedBytes = body.count
        memory.set(renewed, for: query.key, cost: Self.cost(renewed))
        return renewed
    }

    private func remember(_ document: StationboardDocument, fetchedAt: Date, stale: Bool, query: StationboardQuery, now: Date) -> Held {
        let index = courses()
        let until = stale ? now.addingTimeInterval(settings.provisional.seconds) : fetchedAt.addingTimeInterval(ttl(for: query, now: now).seconds)
        let maxAge = max(0, Int(until.timeIntervalSince(now).rounded()))
        let body = render(document, index: index)
        let held = Held(
            document: document, fetchedAt: fetchedAt, until: until, stale: stale, generation: index.generation,
            response: prepare(.board(body: body, freshFor: maxAge, stale: stale)), renderedBytes: body.count)
        memory.set(held, for: query.key, cost: Self.cost(held))
        return held
    }

    /// An unknown station is remembered like another date's board, so asking again costs no upstream call.
    private func rememberUnknown(_ query: StationboardQuery, now: Date) -> Held {
        let response = prepare(.unknownStation(query.station, freshFor: Int(settings.ttl.seconds)))
        let held = Held(
            document: nil, fetchedAt: now, until: now.addingTimeInterval(settings.ttl.seconds), stale: false, generation: 0, response: response,
            renderedBytes: 0)
        memory.set(held, for: query.key, cost: Self.cost(held))
        return held
    }

    /// The upstream's bytes with the ship of each course put in.
    private func render(_ document: StationboardDocument, index: CourseIndex) -> [UInt8] {
        document.rendered { journey in
            guard let course = journey.course, let date = journey.date,
                journey.operatorName.map({ $0.caseInsensitiveCompare("ZSG") == .orderedSame }) ?? true
            else { return nil }
            return index.ship(course: course, on: date)
        }
    }

    /// Memory charged for an entry: the upstream's bytes, the rendered body and a little per journey.
    private static func cost(_ held: Held) -> Int {
        (held.document?.body.count ?? 0) + held.renderedBytes + (held.document?.journeys.count ?? 0) * 64 + 256
    }

    // MARK: Health

    /// Members of the `stationboard` source's `/health` object: the upstream, the budget and memory.
    public func healthJSON() -> String {
        report.healthMembers(gate: gate) + ",\"cache\":{\"bytes\":\(memory.bytes),\"entries\":\(memory.count)}"
    }
}
