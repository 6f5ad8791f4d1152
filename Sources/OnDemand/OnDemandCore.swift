import Basics
import Feature
import Foundation
import Geography
import Identity
import Limits
import Logging
import Metrics
import Scheduling
import UpstreamHTTP

/// The one engine for upstream answers asked on behalf of requests and kept for everyone: memory, then
/// PostgreSQL (another replica or an earlier run may have asked), then the upstream — one call per key at a
/// time, only with a token from the upstream's budget (and this client's share of it) and a unit of its daily
/// quota. When the upstream cannot be asked or fails, the last answer is served stale (while the source allows)
/// for ``OnDemandSettings/provisional`` before asking again; with nothing to serve, ``OnDemandUnavailable`` says
/// why, when to ask again and whose doing it is.
///
/// It returns values (``OnDemandOutcome``), never HTTP: the ``OnDemand`` adapter renders answers sent as they are,
/// and a feature that combines answers (weather: a point's cell, its neighbours, MET Norway's stand-in) renders its
/// own — through the same refusal rule. Metrics: `pier_ondemand_cache_hits_total`, `…_cache_misses_total`,
/// `…_stale_total`, `…_unavailable_total`, `…_stored_reads_total`, labelled `kind` (dashes as underscores) and
/// `upstream`, and the upstream's (``OnDemandUpstream``).
public final class OnDemandCore<Source: OnDemandValueSource>: Sendable {
    public typealias Answer = OnDemandAnswer<Source.Value>
    public typealias Outcome = OnDemandOutcome<Source.Value>

    enum Fetched: Sendable {
        case value(Source.Value, fetchedAt: Date)
        case failed(OnDemandUnavailable)
    }

    public let source: Source
    /// `places`, `wikipedia-summary`: the metrics' prefix.
    public let kind: String
    public let settings: OnDemandSettings
    public let upstream: OnDemandUpstream
    let report: UpstreamReport
    private let gate: UpstreamGate<Source.Key, ClientGroup, Fetched>
    /// The requests past memory per key (``OnDemandClaim``).
    private let claims = OnDemandClaims<Source.Key>()
    /// Who asked for each key, for the reserve (``OnDemandAskers``).
    private let askers: OnDemandAskers<Source.Key>
    @usableFromInline let data: LRUCache<Source.Key, Answer>
    /// Where the keys held lie, for sources whose keys are places (``OnDemandValueSource/location(of:)``).
    @usableFromInline let places = HeldPlaces<Source.Key>()
    private let loading = SingleFlight<Source.Key, OnDemandStored<Source.Value>?>()
    private let runner: FetchRunner?
    /// Told the key whose held answer changed (the adapter drops what it rendered from the old one).
    private let changed: @Sendable (Source.Key) -> Void
    let hits: Counter?, misses: Counter?, staleAnswers: Counter?, unavailableAnswers: Counter?
    private let storedReads: Counter?
    private let logger: Logger

    /// - Parameters:
    ///   - report: the `/health` source the answers count for (its name marks stale answers).
    ///   - runner: captures the upstream's answers when a call fails (`PIER_SAVE_SUSPECT_DIR`).
    ///   - memoryBytes: what the held values may take (the adapter keeps the rest of ``OnDemandSettings/cacheBytes``
    ///     for its renderings).
    ///   - changed: called with a key whose held answer was replaced.
    public init(
        kind: String, source: Source, upstream: OnDemandUpstream, report: UpstreamReport, settings: OnDemandSettings = OnDemandSettings(),
        memoryBytes: Int? = nil, runner: FetchRunner? = nil, metrics: MetricsRegistry? = nil,
        changed: @escaping @Sendable (Source.Key) -> Void = { _ in }
    ) {
        self.kind = kind
        self.source = source
        self.upstream = upstream
        self.report = report
        self.settings = settings
        self.runner = runner
        self.changed = changed
        logger = Logger(label: "pier.\(kind)")
        gate = UpstreamGate(limits: upstream.limits)
        askers = OnDemandAskers(budgetBytes: max(64 * 1024, settings.cacheBytes / 32))
        data = LRUCache(budgetBytes: memoryBytes ?? settings.cacheBytes)
        let labels = [("kind", kind.replacingOccurrences(of: "-", with: "_")), ("upstream", upstream.metric)]
        hits = metrics?.counter("pier_ondemand_cache_hits_total", help: "Answers served from memory, by kind.", labels: labels)
        storedReads = metrics?.counter(
            "pier_ondemand_stored_reads_total", help: "Answers looked up in PostgreSQL (requests admitted past memory), by kind.", labels: labels)
        misses = metrics?.counter(
            "pier_ondemand_cache_misses_total", help: "Requests memory could not answer (PostgreSQL or the upstream asked), by kind.", labels: labels)
        staleAnswers = metrics?.counter(
            "pier_ondemand_stale_total", help: "Answers served stale (the upstream failed or could not be asked), by kind.", labels: labels)
        unavailableAnswers = metrics?.counter(
            "pier_ondemand_unavailable_total", help: "Requests answered 503 or 429 (nothing to serve), by kind.", labels: labels)
    }

    /// Reads what `/health` shows before the first request: the day's quota and the newest stored answer.
    public func load() async throws {
        try await upstream.quota?.load()
        if let last = try await source.lastFetch() { report.stored(lastSuccess: last) }
    }

    // MARK: Memory

    /// The answer memory holds for `key` while it holds (fresh, or stale within its provisional time), or one cut
    /// from a fresh answer of a key that covers it (``OnDemandValueSource/coverings(of:)``); `nil`: ask
    /// ``answer(_:client:now:)``. Not counted: the caller counts its hit.
    /// Inlinable, so a feature's lookup is specialized for its key and value: run generic, across the module
    /// boundary, each lookup asked the runtime for the cache's generic types (4,000 instructions of a place's weather).
    @inlinable
    public func held(_ key: Source.Key, now: Date = Date()) -> Answer? {
        if let held = data[key], now < held.until, !held.stale || source.mayServeStale(held.value, now: now) { return held }
        return heldCovering(key, now: now)
    }

    /// ``held(_:now:)``'s answer cut from a fresh answer of a key that covers `key`.
    @usableFromInline
    func heldCovering(_ key: Source.Key, now: Date) -> Answer? {
        for cover in source.coverings(of: key) where cover != key {
            guard let held = data.peek(cover), !held.stale, now < held.until, let cut = source.cut(held.value, to: key) else { continue }
            let own = Answer(value: cut, fetchedAt: held.fetchedAt, until: held.until, staleBecause: nil)
            keep(own, for: key)
            return own
        }
        return nil
    }

    /// Counts a request answered from memory by a route that looks there itself (weather's answers).
    public func countHit() {
        hits?.increment()
    }

    /// Whether memory holds an answer for `key` (fresh or not).
    public func holds(_ key: Source.Key) -> Bool {
        data.peek(key) != nil
    }

    /// What memory holds for `key`, fresh or not, marked as used: for a route that judges an answer's age itself
    /// (weather's cell, fresh for its TTL). Not counted: the caller counts its hit.
    public func heldAnswer(_ key: Source.Key) -> Answer? {
        data[key]
    }

    /// An answer memory holds near a point, and how far its key lies.
    public struct Nearby: Sendable {
        public var key: Source.Key
        public var answer: Answer
        public var kilometres: Double

        @inlinable
        init(key: Source.Key, answer: Answer, kilometres: Double) {
            self.key = key
            self.answer = answer
            self.kilometres = kilometres
        }
    }

    /// Among the answers memory holds for keys within `kilometres` of `point` (``OnDemandValueSource/location(of:)``),
    /// `excluding` left out, the nearest fetched at or after `freshSince` and the nearest of any age, without marking
    /// them used: memory's counterpart of the store's nearest lookup (``SharedAnswerStore/nearby(kind:parameters:latitude:longitude:within:freshSince:excluding:)``).
    /// Inlinable with ``HeldPlaces``: specialized for the source's key where the feature calls it.
    @inlinable
    public func nearestHeld(to point: Coordinate, within kilometres: Double, freshSince: Date, excluding: Source.Key?) -> (fresh: Nearby?, any: Nearby?) {
        var found: (fresh: Nearby?, any: Nearby?) = (nil, nil)
        var gone: [(Source.Key, Coordinate)] = []
        // A hint left behind by a race between a keep and an eviction is dropped when found.
        defer { if !gone.isEmpty { places.remove(gone) } }
        // Nearest first, and only until both are found: the nearest held answer is usually fresh, so a wide reach (500 km,
        // every cell held) costs one or two looks at memory, not one per cell.
        for candidate in places.near(point, within: kilometres, excluding: excluding).sorted(by: { $0.kilometres < $1.kilometres }) {
            guard let held = data.peek(candidate.key) else {
                if let place = source.location(of: candidate.key) { gone.append((candidate.key, place)) }
                continue
            }
            let nearby = Nearby(key: candidate.key, answer: held, kilometres: candidate.kilometres)
            if found.any == nil { found.any = nearby }
            if held.fetchedAt >= freshSince {
                found.fresh = nearby
                break
            }
        }
        return found
    }

    /// Bytes and entries of the values held, and how many left for space since the start.
    public var bytes: Int { data.bytes }
    public var count: Int { data.count }
    public var evictions: Int { data.evictions }
    /// What the values held may take.
    public var budgetBytes: Int { data.budgetBytes }

    // MARK: Answering

    /// Decided from memory alone, before any work for the request (on the event loop): a request for a key another
    /// request is already past memory for joins it — it costs no upstream call, so its client's share is not asked
    /// (``OnDemandClaim``); any other is refused when `client` has spent its share — of the second, even after waiting
    /// its turn, or of the day — since a request memory cannot answer would be refused anyway (what memory holds for
    /// the key is served stale instead when the source allows); else it is let through with its claim
    /// (``admitted(_:client:now:claim:refused:_:)``).
    public func admission(for key: Source.Key, client: Spender?, now: Date = Date()) -> OnDemandAdmission<Outcome> {
        if !claims.isClaimed(key), let refused = refusal(for: key, client: client, now: now) { return .refused(refused) }
        return .admitted(claims.claim(key))
    }

    /// The refusal of ``admission(for:client:now:)`` for a request that joins nothing; `nil`: let it through.
    private func refusal(for key: Source.Key, client: Spender?, now: Date) -> Outcome? {
        guard let client, let refused = upstream.refusalBeforeWork(client.groups, units: source.units(key), now: now) else { return nil }
        misses?.increment()
        if let held = data.peek(key), source.mayServeStale(held.value, now: now) {
            return .answer(remember(held.value, fetchedAt: held.fetchedAt, staleBecause: refused, key: key, now: now))
        }
        unavailableAnswers?.increment()
        return .unavailable(refused)
    }

    /// `body` run for `client` once admitted: by `claim` (the caller has just asked ``admission(for:client:now:)``) or
    /// by asking now, and with fewer than ``UpstreamLimits/Waiting/requestsPerClient`` of its requests under way, so
    /// that no client holds the database for others — unless it joins a request already past memory for its key, which
    /// costs nothing more. A refusal is handed to `refused`.
    public func admitted<Result>(
        _ key: Source.Key, client: Spender?, now: Date = Date(), claim: OnDemandClaim? = nil,
        refused: (Outcome) -> Result, _ body: () async throws -> Result
    ) async rethrows -> Result {
        let held: OnDemandClaim
        if let claim {
            held = claim
        } else {
            switch admission(for: key, client: client, now: now) {
            case .refused(let outcome): return refused(outcome)
            case .admitted(let claim): held = claim
            }
        }
        // Joiners are not counted against the requests at once either: 30 cold requests for one cell from a carrier's
        // NAT are answered by one call.
        defer { withExtendedLifetime(held) {} }
        guard let groups = client?.groups, !held.joins else { return try await OnDemandClaim.$current.withValue(held) { try await body() } }
        if let busy = upstream.start(groups) {
            misses?.increment()
            unavailableAnswers?.increment()
            return refused(.unavailable(busy))
        }
        defer { upstream.limits.finished(groups) }
        return try await OnDemandClaim.$current.withValue(held) { try await body() }
    }

    /// The outcome for `key` for a route that renders it itself (weather, place names, MET Norway's stand-in): admitted
    /// on `client`'s share, then what memory holds (fresh, or stale within its provisional time), else PostgreSQL and
    /// the upstream.
    public func outcome(for key: Source.Key, client: Spender?, now: Date = Date()) async -> Outcome {
        await admitted(key, client: client, now: now, refused: { $0 }) { await claimedOutcome(key, client: client, now: now) }
    }

    /// ``outcome(for:client:now:)`` handed to `then` with the key's claim still held (unless refused before any work):
    /// the requests for the key that arrive while `then` works on — asking a stand-in upstream after a failure — join
    /// it and share that failure, rather than spend their share on a call that has just failed.
    public func outcome<Result>(
        for key: Source.Key, client: Spender?, now: Date = Date(), then: (Outcome) async throws -> Result
    ) async rethrows -> Result {
        let step: OnDemandStep<Outcome, Result> = try await admitted(key, client: client, now: now, refused: { .refused($0) }) {
            .done(try await then(await claimedOutcome(key, client: client, now: now)))
        }
        switch step {
        case .refused(let outcome): return try await then(outcome)
        case .done(let result): return result
        }
    }

    /// What memory holds (fresh, or stale within its provisional time), else PostgreSQL and the upstream — for a
    /// request holding its claim.
    private func claimedOutcome(_ key: Source.Key, client: Spender?, now: Date) async -> Outcome {
        if let held = held(key, now: now) { return .answer(held) }
        return await answer(key, client: client, now: now)
    }

    /// The answer for `key` asked by `client` past memory: PostgreSQL, then the upstream (see the type). Call it
    /// inside ``admitted(_:client:now:claim:refused:_:)``.
    public func answer(_ key: Source.Key, client: Spender?, now: Date = Date()) async -> Outcome {
        misses?.increment()
        let groups = client?.groups ?? []
        let stored = await storedAnswer(key)
        // The newest answer known: memory may hold a newer one than PostgreSQL (its write failed).
        var last = stored.map { Answer(value: $0.value, fetchedAt: $0.fetchedAt, until: $0.fetchedAt, staleBecause: nil) }
        if let held = data.peek(key), held.fetchedAt > last?.fetchedAt ?? .distantPast { last = held }
        source.noteMiss(key, last: last?.value, now: now)
        let popular = askers.asked(key, by: groups.first)
        if let last, now < source.freshUntil(last.value, fetchedAt: last.fetchedAt, for: key, now: now) {
            return .answer(remember(last.value, fetchedAt: last.fetchedAt, staleBecause: nil, key: key, now: now))
        }
        // A client that may not spend (no token where one is required) is served what is held, else refused.
        if let refusal = client?.refusal {
            return unavailable(OnDemandUnavailable(refusal.refused(), retryAfter: settings.retryAfterFailure, cause: .credential), last: last, key: key, now: now)
        }
        // The failure a request this one joined saw, and is still at work with (``OnDemandClaims``).
        if let failed = claims.failure(for: key) { return unavailable(failed, last: last, key: key, now: now) }
        let previous = last?.value
        let outcome = await gate.call(key, clients: groups) { [self] in
            // A call for this key may have landed between our look at memory and this one starting.
            if let held = data.peek(key), !held.stale, now < held.until { return .value(held.value, fetchedAt: held.fetchedAt) }
            if let quota = upstream.quota, let spent = await upstream.take(
                quota, units: source.units(key), groups: groups, reserved: popular, retryAfterFailure: settings.retryAfterFailure, now: now)
            {
                return .failed(spent)
            }
            return await fetch(key, previous: previous, now: now)
        }
        switch outcome {
        case .answered(.value(let value, let fetchedAt)):
            return .answer(remember(value, fetchedAt: fetchedAt, staleBecause: nil, key: key, now: now))
        case .answered(.failed(let why)):
            if why.cause == .upstream, let claim = OnDemandClaim.current { claims.note(why, for: key, by: claim) }
            return unavailable(why, last: last, key: key, now: now)
        case .refused(let refused):
            return unavailable(upstream.unavailable(refused, groups: groups), last: last, key: key, now: now)
        }
    }

    /// The answer PostgreSQL holds for `key`, one read per key at a time, shared with the requests past memory for it —
    /// for a feature that also looks at other keys' answers (weather's neighbouring cells). What it reads is held in
    /// memory unless memory holds a newer answer (found there next time, as a neighbour too). A read error counts as
    /// nothing stored (logged).
    public func storedAnswer(_ key: Source.Key) async -> OnDemandStored<Source.Value>? {
        await loading.value(for: key) { [self] in
            storedReads?.increment()
            do {
                guard let stored = try await source.stored(key) else { return nil }
                if stored.fetchedAt > data.peek(key)?.fetchedAt ?? .distantPast {
                    let until = source.freshUntil(stored.value, fetchedAt: stored.fetchedAt, for: key, now: stored.fetchedAt)
                    keep(Answer(value: stored.value, fetchedAt: stored.fetchedAt, until: until, staleBecause: nil), for: key)
                }
                return stored
            } catch {
                logger.warning("could not read a stored answer", metadata: ["error": "\(error)"])
                return nil
            }
        }
    }

    /// The last answer served stale for `why` while the source allows, else `why`.
    private func unavailable(_ why: OnDemandUnavailable, last: Answer?, key: Source.Key, now: Date) -> Outcome {
        if let last, source.mayServeStale(last.value, now: now) {
            return .answer(remember(last.value, fetchedAt: last.fetchedAt, staleBecause: why, key: key, now: now))
        }
        unavailableAnswers?.increment()
        return .unavailable(why)
    }

    /// One upstream call (the caller holds a token and the quota's units): check, store, remember.
    private func fetch(_ key: Source.Key, previous: Source.Value?, now: Date) async -> Fetched {
        upstream.calls?.increment()
        let reply: UpstreamReply<Source.Value>? = await FetchRunner.capturingFailures(runner, of: kind) { [self] in
            do {
                return (try await source.fetch(key, previous: previous), nil)
            } catch {
                // The key (a point, a name) only at debug: logs at info show states, not what users asked.
                logger.warning("\(upstream.name) failed", metadata: ["error": "\(source.state(of: error))"])
                logger.debug("\(upstream.name) failed", metadata: ["request": "\(key)", "error": "\(error)"])
                report.failed(error, isAnswer: !(error is UpstreamError))
                return (nil, "\(error)")
            }
        }
        if case .answer? = reply {} else { upstream.failures?.increment() }
        switch reply {
        case nil:
            return .failed(OnDemandUnavailable("\(upstream.name) failed", retryAfter: settings.retryAfterFailure))
        case .refused(let message, let detail, let pause)?:
            return .failed(upstream.refused(message: message, detail: detail, pause: pause, report: report, logger: logger))
        case .throttled(let message, let detail, let asked)?:
            return .failed(upstream.throttled(message: message, detail: detail, retryAfter: asked, report: report, logger: logger))
        case .answer(let value)?:
            report.answered()
            let fetchedAt = Date()
            do {
                try await source.store(value, for: key, fetchedAt: fetchedAt)
            } catch {
                logger.warning("could not store an answer; serving it anyway", metadata: ["error": "\(error)"])
            }
            keep(Answer(value: value, fetchedAt: fetchedAt, until: source.freshUntil(value, fetchedAt: fetchedAt, for: key, now: fetchedAt), staleBecause: nil), for: key)
            return .value(value, fetchedAt: fetchedAt)
        }
    }

    /// A value another call brought for `key` (FMI's answer for a place name is also the forecast of its cell): stored
    /// and held like one of the engine's own.
    public func adopt(_ value: Source.Value, for key: Source.Key, fetchedAt: Date) async {
        do { try await source.store(value, for: key, fetchedAt: fetchedAt) } catch {
            logger.warning("could not store an answer; serving it anyway", metadata: ["error": "\(error)"])
        }
        keep(Answer(value: value, fetchedAt: fetchedAt, until: source.freshUntil(value, fetchedAt: fetchedAt, for: key, now: fetchedAt), staleBecause: nil), for: key)
    }

    /// Holds `value` for `key`: fresh for its lifetime, stale for ``OnDemandSettings/provisional``.
    private func remember(_ value: Source.Value, fetchedAt: Date, staleBecause: OnDemandUnavailable?, key: Source.Key, now: Date) -> Answer {
        let until = staleBecause != nil
            ? now.addingTimeInterval(settings.provisional.seconds) : source.freshUntil(value, fetchedAt: fetchedAt, for: key, now: now)
        let held = Answer(value: value, fetchedAt: fetchedAt, until: until, staleBecause: staleBecause)
        keep(held, for: key)
        return held
    }

    /// Holds `held` for `key`; whoever rendered the old answer is told when it changed.
    private func keep(_ held: Answer, for key: Source.Key) {
        let previous = data.peek(key)
        let evicted = data.set(held, for: key, cost: source.cost(of: held.value))
        if previous == nil, let point = source.location(of: key) { places.insert(key, at: point) }
        if !evicted.isEmpty { places.remove(evicted.lazy.compactMap { [source] key in source.location(of: key).map { (key, $0) } }) }
        if let previous, previous.fetchedAt == held.fetchedAt, previous.stale == held.stale { return }
        changed(key)
    }

    // MARK: Health

    /// Members of the source's `/health` object: the upstream (reachable, pause, budget, quota) and the source's own.
    public func health() -> MergedObject {
        MergedObject([upstream.health(report), source.health()])
    }
}

/// What ``OnDemandCore/admitted(_:client:now:claim:refused:_:)`` came to for a caller that handles a refusal after
/// the claim is let go.
private enum OnDemandStep<Refusal, Value> {
    case refused(Refusal)
    case done(Value)
}
