import Basics
import Fetching
import Foundation
import Logging
import Metrics
import Synchronization

/// Upstream answers asked on behalf of requests and kept for everyone, for upstreams whose answers change
/// slowly (places, geocoding, encyclopaedia pages): memory, then PostgreSQL (`upstream_answers`: another replica
/// or an earlier run may have asked), then the upstream — through an ``UpstreamGate`` (a per-second budget with
/// each client's share, one call per key at a time, a pause when the upstream refuses or throttles) and, for
/// keyed upstreams, a ``DailyQuota`` counted in units (Geoapify's credits).
///
/// The gate, the quota and the ``UpstreamReport`` may be shared by several services of one upstream (places and
/// geocoding draw on one Geoapify budget). An answer is fresh until its `expiresAt`; when the upstream cannot be
/// asked or fails, the last one is served stale for ``Settings/provisional`` before asking again; with nothing
/// stored, `503` (`429` when it is this client's share that is spent) with `Retry-After`. Stored answers are
/// deleted ``Settings/retention`` after they expire.
public final class SharedAnswers<Key: SharedAnswerKey, Prepared: Sendable>: Sendable {
    public typealias Gate = SharedAnswerGate

    public typealias Settings = SharedAnswerSettings

    struct Held: Sendable {
        var answer: StoredAnswer
        var stale: Bool
        var until: Date
        var response: Prepared
        var renderedAt: Date
    }

    /// A held answer's `max-age` is counted when it is rendered; after this long it is rendered again, so that
    /// an answer fresh for a week does not tell a client on its last day that it holds for another week.
    static var rerenderAfter: TimeInterval { 3600 }

    /// The kind in `upstream_answers`, and the prefix of the metrics (`pier_<kind>_…`, dashes as underscores).
    public let kind: String
    public let settings: Settings
    private let upstream: String
    private let gate: Gate
    private let quota: DailyQuota?
    private let units: @Sendable (Key) -> Int
    private let fetcher: @Sendable (Key) async throws -> UpstreamAnswer
    private let render: @Sendable (SharedAnswer) -> Prepared
    private let store: SharedAnswerStore
    private let memory: LRUCache<Key, Held>
    private let loading = SingleFlight<Key, StoredAnswer?>()
    private let report: UpstreamReport
    private let runner: FetchRunner?
    private let stored = Mutex<(count: Int, prunedAt: Date)>((0, .distantPast))
    private let hits: Counter?, misses: Counter?, upstreamCalls: Counter?, staleAnswers: Counter?, unavailableAnswers: Counter?
    private let refusals: RefusalCounters
    private let logger: Logger

    /// - Parameters:
    ///   - kind: `places`, `wikipedia-summary`, …
    ///   - upstream: the upstream's name in error messages (`Geoapify`).
    ///   - units: what one call for a key costs of `quota` (one unit by default).
    ///   - fetcher: one upstream call (the feature's client); it checks the answer and says how long it holds.
    ///   - render: what the route serves for what the service has (its HTTP answer, made once per answer).
    public init(
        kind: String, upstream: String, gate: Gate, quota: DailyQuota?, units: @escaping @Sendable (Key) -> Int = { _ in 1 },
        store: SharedAnswerStore, report: UpstreamReport, settings: Settings = Settings(), runner: FetchRunner? = nil,
        metrics: MetricsRegistry? = nil, fetcher: @escaping @Sendable (Key) async throws -> UpstreamAnswer,
        render: @escaping @Sendable (SharedAnswer) -> Prepared
    ) {
        self.kind = kind
        self.upstream = upstream
        self.gate = gate
        self.quota = quota
        self.units = units
        self.store = store
        self.report = report
        self.settings = settings
        self.runner = runner
        self.fetcher = fetcher
        self.render = render
        logger = Logger(label: "pier.\(kind)")
        memory = LRUCache(budgetBytes: settings.cacheBytes)
        let prefix = "pier_" + kind.replacingOccurrences(of: "-", with: "_")
        hits = metrics?.counter(prefix + "_cache_hits_total", help: "\(kind) answers served from memory.")
        misses = metrics?.counter(prefix + "_cache_misses_total", help: "\(kind) requests memory could not answer.")
        upstreamCalls = metrics?.counter(prefix + "_upstream_requests_total", help: "\(kind) requests made to \(upstream).")
        staleAnswers = metrics?.counter(prefix + "_stale_total", help: "\(kind) answers served stale.")
        unavailableAnswers = metrics?.counter(prefix + "_unavailable_total", help: "\(kind) requests answered 503 or 429 (nothing stored).")
        refusals = RefusalCounters(
            metrics: metrics, name: prefix + "_refusals_total",
            help: "\(kind) requests not sent to \(upstream): budget, client share, pause or daily quota.",
            reasons: Gate.Refusal.allCases.map(\.rawValue) + ["daily_quota"])
        if let metrics {
            let memory = memory
            metrics.gauge(prefix + "_cache_bytes", help: "Bytes of \(kind) answers held in memory.") { Double(memory.bytes) }
        }
    }

    /// Reads what PostgreSQL holds (for `/health`) before the first request.
    public func load() async throws {
        let summary = try await store.summary(kind: kind)
        stored.withLock { $0.count = summary.count }
        if let last = summary.lastFetch { report.stored(lastSuccess: last) }
    }

    /// The answer held in memory while it holds (the route's fast path); `nil` when PostgreSQL or the upstream
    /// must be asked.
    public func cachedResponse(for key: Key, now: Date = Date()) -> Prepared? {
        guard let held = memory[key], now < held.until else { return nil }
        hits?.increment()
        if now.timeIntervalSince(held.renderedAt) > Self.rerenderAfter {
            return remember(held.answer, stale: held.stale, key: key, now: now).response
        }
        return held.response
    }

    /// Whether memory holds an answer for `key` (fresh or not).
    public func holds(_ key: Key) -> Bool {
        memory.peek(key) != nil
    }

    public func response(for key: Key, client: IPAddress?, now: Date = Date()) async -> Prepared {
        if let cached = cachedResponse(for: key, now: now) { return cached }
        misses?.increment()
        var last = await loading.value(for: key) { [store, kind, logger] in
            do { return try await store.answer(kind: kind, key: key.storageKey) } catch {
                logger.warning("could not read a stored answer", metadata: ["key": "\(key)", "error": "\(error)"])
                return nil
            }
        }
        // Memory may hold a newer answer than PostgreSQL (its write failed).
        if let held = memory.peek(key), held.answer.fetchedAt > last?.fetchedAt ?? .distantPast { last = held.answer }
        if let last, now < last.expiresAt { return remember(last, stale: false, key: key, now: now).response }
        let outcome = await gate.call(kind + "|" + key.storageKey, client: client) { [self] in
            // A call for this key may have landed between our look at memory and this one starting.
            if let held = memory.peek(key), !held.stale, now < held.until { return .stored(held.answer) }
            if let quota, case .spent(let retryAfter) = await quota.take(units: units(key), now: now) {
                refusals.count("daily_quota")
                return .failed("\(upstream)'s daily quota for this server is spent", retryAfter: retryAfter)
            }
            return await fetch(key)
        }
        let reason: String
        let retryAfter: Int
        var clientShare = false
        switch outcome {
        case .answered(.stored(let answer)):
            if let held = memory.peek(key), held.answer == answer, !held.stale { return held.response }
            return remember(answer, stale: false, key: key, now: now).response
        case .answered(.failed(let why, let seconds)):
            (reason, retryAfter) = (why, seconds)
        case .refused(let refusal, let seconds):
            (reason, retryAfter, clientShare) = refusals.refused(refusal, retryAfter: seconds, upstream: upstream)
        }
        if let last {
            staleAnswers?.increment()
            return remember(last, stale: true, key: key, now: now).response
        }
        unavailableAnswers?.increment()
        return render(.unavailable(reason: "nothing stored for this request: \(reason)", retryAfter: retryAfter, clientShare: clientShare))
    }

    /// One upstream call (the caller holds a token and the quota's units): check, store, remember.
    private func fetch(_ key: Key) async -> SharedAnswerFetch {
        upstreamCalls?.increment()
        let answer: UpstreamAnswer? = await FetchRunner.capturingFailures(runner, of: kind) { [self] in
            do {
                return (try await fetcher(key), nil)
            } catch {
                logger.warning("\(upstream) failed", metadata: ["request": "\(key)", "error": "\(error)"])
                report.failed(error, isAnswer: !(error is UpstreamError))
                return (nil, "\(error)")
            }
        }
        switch answer {
        case nil:
            return .failed("\(upstream) failed", retryAfter: settings.retryAfterFailure)
        case .refused(let why):
            gate.pause(seconds: Double(settings.pauseAfterRefusal))
            logger.error("\(upstream) refused this server's requests; pausing calls", metadata: ["why": "\(why)", "pause_s": "\(settings.pauseAfterRefusal)"])
            report.answered(error: "\(why) (pausing \(settings.pauseAfterRefusal) s)")
            return .failed("\(upstream) refused this server's requests", retryAfter: settings.pauseAfterRefusal)
        case .rateLimited(let seconds):
            let pause = min(RetryAfter.limit, seconds ?? settings.pauseAfterRefusal)
            gate.pause(seconds: Double(pause))
            logger.warning("\(upstream) answered 429; pausing calls", metadata: ["pause_s": "\(pause)"])
            report.answered(error: "429: \(upstream) is rate-limiting this server (pausing \(pause) s)")
            return .failed("\(upstream) is rate-limiting this server (429)", retryAfter: max(1, pause))
        case .answer(let status, let body, let ttl):
            report.answered()
            let fetchedAt = Date()
            let answer = StoredAnswer(status: status, body: body, fetchedAt: fetchedAt, expiresAt: fetchedAt.addingTimeInterval(ttl.seconds))
            do {
                try await store.store(answer, kind: kind, key: key.storageKey, location: key.location)
                try await pruneIfDue(now: fetchedAt)
            } catch {
                logger.warning("could not store an answer; serving it anyway", metadata: ["error": "\(error)"])
            }
            _ = remember(answer, stale: false, key: key, now: fetchedAt)
            return .stored(answer)
        }
    }

    /// Enforces the retention at most every ten minutes per process (on a store, so an idle server prunes
    /// nothing it would not have to).
    private func pruneIfDue(now: Date) async throws {
        let due = stored.withLock { state in
            guard now.timeIntervalSince(state.prunedAt) > 600 else { return false }
            state.prunedAt = now
            return true
        }
        guard due else {
            stored.withLock { $0.count += 1 }
            return
        }
        try await store.prune(kind: kind, expiredBefore: now.addingTimeInterval(-settings.retention.seconds))
        let count = try await store.summary(kind: kind).count
        stored.withLock { $0.count = count }
    }

    private func remember(_ answer: StoredAnswer, stale: Bool, key: Key, now: Date) -> Held {
        let until = stale ? now.addingTimeInterval(settings.provisional.seconds) : answer.expiresAt
        let freshFor = max(0, Int(until.timeIntervalSince(now).rounded()))
        let held = Held(
            answer: answer, stale: stale, until: until, response: render(.answer(answer, freshFor: freshFor, stale: stale)), renderedAt: now)
        memory.set(held, for: key, cost: 2 * answer.body.count + 512)
        return held
    }

    /// `{"bytes":…,"entries":…,"stored":…}`: memory and PostgreSQL (`stored` counts rows as of the last prune,
    /// plus the answers this process stored since).
    public var cacheJSON: String {
        "{\"bytes\":\(memory.bytes),\"entries\":\(memory.count),\"stored\":\(stored.withLock { $0.count })}"
    }
}
