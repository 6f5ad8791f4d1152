import Basics
import Foundation
import HTTPServer
import Limits
import Logging
import Metrics
import Scheduling
import UpstreamHTTP

/// The one engine for upstream answers asked on behalf of requests and kept for everyone: memory, then
/// PostgreSQL (another replica or an earlier run may have asked), then the upstream — one call per key at a
/// time, only with a token from the upstream's budget (and this client's share of it) and a unit of its daily
/// quota. When the upstream cannot be asked or fails, the last answer is served stale (while the source allows)
/// for ``OnDemandSettings/provisional`` before asking again; with nothing to serve, `503` — `429` when it is
/// this client's share that is spent — with `Retry-After`.
///
/// A feature supplies only what is its own (``OnDemandSource``); the engine keeps the HTTP answer of each
/// request ready in memory, so a hit costs one lookup. Metrics: `pier_<kind>_cache_hits_total`,
/// `…_cache_misses_total`, `…_stale_total`, `…_unavailable_total`, `…_cache_bytes`, `…_cache_entries` (dashes in
/// the kind as underscores), and the upstream's (``OnDemandUpstream``).
public final class OnDemand<Source: OnDemandSource>: Sendable {
    public typealias Settings = OnDemandSettings

    struct Held: Sendable {
        var value: Source.Value
        var fetchedAt: Date
        /// Served from memory until then; afterwards PostgreSQL and the upstream are asked.
        var until: Date
        var stale: Bool
    }

    struct Rendering: Sendable {
        var response: OnDemandResponse
        var fetchedAt: Date
        var until: Date
        var version: Int
    }

    enum Fetched: Sendable {
        case value(Source.Value, fetchedAt: Date)
        /// Not answered: why, `Retry-After`, and whether it is the client's share that is spent (`429`).
        case failed(String, retryAfter: Int, clientShare: Bool = false)
    }

    /// A held answer's `max-age` is counted when it is rendered; after this long it is rendered again, so that an
    /// answer fresh for a week does not tell a client on its last day that it holds for another week.
    static var rerenderAfter: TimeInterval { 3600 }

    public let source: Source
    /// `places`, `wikipedia-summary`: the metrics' prefix.
    public let kind: String
    public let settings: Settings
    public let upstream: OnDemandUpstream
    private let report: UpstreamReport
    private let gate: UpstreamGate<Source.Key, ClientGroup, Fetched>
    private let refusalBodies: RefusalBodies
    /// Who asked for each key, for the reserve (``OnDemandAskers``).
    private let askers: OnDemandAskers<Source.Key>
    private let data: LRUCache<Source.Key, Held>
    private let renderings: LRUCache<Source.Request, Rendering>
    private let loading = SingleFlight<Source.Key, OnDemandStored<Source.Value>?>()
    private let runner: FetchRunner?
    private let hits: Counter?, misses: Counter?, staleAnswers: Counter?, unavailableAnswers: Counter?, storedReads: Counter?
    private let logger: Logger

    /// - Parameters:
    ///   - report: the `/health` source the answers count for (its name marks stale answers).
    ///   - runner: captures the upstream's answers when a call fails (`PIER_SAVE_SUSPECT_DIR`).
    public init(
        kind: String, source: Source, upstream: OnDemandUpstream, report: UpstreamReport, settings: Settings = Settings(),
        runner: FetchRunner? = nil, metrics: MetricsRegistry? = nil
    ) {
        self.kind = kind
        self.source = source
        self.upstream = upstream
        self.report = report
        self.settings = settings
        self.runner = runner
        logger = Logger(label: "pier.\(kind)")
        gate = UpstreamGate(limits: upstream.limits)
        refusalBodies = RefusalBodies(nothingToServe: source.nothingToServe, upstream: upstream.name)
        askers = OnDemandAskers(budgetBytes: max(64 * 1024, settings.cacheBytes / 32))
        data = LRUCache(budgetBytes: settings.cacheBytes / 2)
        renderings = LRUCache(budgetBytes: settings.cacheBytes / 2)
        let prefix = "pier_" + kind.replacingOccurrences(of: "-", with: "_")
        hits = metrics?.counter(prefix + "_cache_hits_total", help: "\(kind) answers served from memory.")
        storedReads = metrics?.counter(prefix + "_stored_reads_total", help: "\(kind) answers looked up in PostgreSQL (requests admitted past memory).")
        misses = metrics?.counter(prefix + "_cache_misses_total", help: "\(kind) requests memory could not answer (PostgreSQL or \(upstream.name) asked).")
        staleAnswers = metrics?.counter(prefix + "_stale_total", help: "\(kind) answers served stale (\(upstream.name) failed or could not be asked).")
        unavailableAnswers = metrics?.counter(prefix + "_unavailable_total", help: "\(kind) requests answered 503 or 429 (nothing to serve).")
        if let metrics {
            let data = data, renderings = renderings
            metrics.gauge(prefix + "_cache_bytes", help: "Bytes of \(kind) answers held in memory.") { Double(data.bytes + renderings.bytes) }
            metrics.gauge(prefix + "_cache_entries", help: "\(kind) answers held in memory, ready to send.") { Double(renderings.count) }
        }
    }

    /// Reads what `/health` shows before the first request: the day's quota and the newest stored answer.
    public func load() async throws {
        try await upstream.quota?.load()
        if let last = try await source.lastFetch() { report.stored(lastSuccess: last) }
    }

    // MARK: Answering

    /// The answer held in memory while it holds (the route's fast path, on the event loop); `nil` when PostgreSQL
    /// or the upstream must be asked.
    public func cachedResponse(for request: Source.Request, now: Date = Date()) -> OnDemandResponse? {
        if let rendering = renderings[request], now < rendering.until, rendering.version == source.renderingVersion {
            hits?.increment()
            return rendering.response
        }
        let key = source.key(of: request)
        guard let held = data.peek(key), now < held.until, !held.stale || source.mayServeStale(held.value, now: now)
        else { return covered(request, key: key, now: now) }
        hits?.increment()
        return render(held, for: request, now: now)
    }

    /// The answer for `request` cut from a fresh answer memory holds for a key that covers its own
    /// (``OnDemandSource/coverings(of:)``: a larger stationboard for a smaller limit), kept under its own key.
    private func covered(_ request: Source.Request, key: Source.Key, now: Date) -> OnDemandResponse? {
        for cover in source.coverings(of: key) where cover != key {
            guard let held = data.peek(cover), !held.stale, now < held.until, let cut = source.cut(held.value, to: key) else { continue }
            hits?.increment()
            let own = Held(value: cut, fetchedAt: held.fetchedAt, until: held.until, stale: false)
            keep(own, for: key)
            return render(own, for: request, now: now)
        }
        return nil
    }

    /// Whether memory holds an answer for `key` (fresh or not).
    public func holds(_ key: Source.Key) -> Bool {
        data.peek(key) != nil
    }

    /// A refusal decided from memory alone, before any work for the request (on the event loop): `client` has
    /// spent its share — of the second, even after waiting its turn, or of the day — so a request memory cannot
    /// answer would be refused anyway. What memory holds for the key is served stale instead when the source
    /// allows. `nil`: go on (``response(for:client:now:)``).
    public func refusal(for request: Source.Request, client: Spender?, now: Date = Date()) -> OnDemandResponse? {
        guard let client else { return nil }
        let groups = client.groups
        let key = source.key(of: request)
        let refused: (refusal: String, retryAfter: Double, group: ClientGroup.Size, body: [UInt8])
        if let early = upstream.limits.precheck(groups, joining: joins(key)) {
            refused = (early.refusal.rawValue, early.retryAfter, groups[early.by ?? 0].size, refusalBodies.body(early.refusal))
        } else if let quota = upstream.quota, let spent = quota.spentGroup(groups, units: source.units(key), now: now) {
            let size = groups[spent.index].size
            refused = ("daily_share", Double(spent.retryAfter), size, refusalBodies.body(dailyShareOf: size))
        } else {
            return nil
        }
        misses?.increment()
        upstream.refusals.count(refused.refusal, group: refused.group)
        if let held = data.peek(key), source.mayServeStale(held.value, now: now) {
            return remember(held.value, fetchedAt: held.fetchedAt, stale: true, key: key, request: request, now: now)
        }
        unavailableAnswers?.increment()
        return .unavailable(body: refused.body, retryAfter: RetryAfter.seconds(refused.retryAfter), clientShare: true)
    }

    /// The bodies of the refusals a client's own limits decide, made once: a flood's refusals cost what a hit costs,
    /// so none builds its sentence or its JSON again.
    private struct RefusalBodies: Sendable {
        private let limits: [UpstreamRefusal: [UInt8]]
        private let dailyShare: [ClientGroup.Size: [UInt8]]

        init(nothingToServe: String, upstream: String) {
            func body(_ reason: String) -> [UInt8] { HTTPResponse.errorBody("\(nothingToServe): \(reason)") }
            limits = Dictionary(uniqueKeysWithValues: UpstreamRefusal.allCases.map { ($0, body($0.reason(upstream: upstream))) })
            dailyShare = Dictionary(uniqueKeysWithValues: ClientGroup.Size.allCases.map { ($0, body(OnDemand.shareSpent($0, upstream: upstream))) })
        }

        /// Every case was made in `init`.
        func body(_ refusal: UpstreamRefusal) -> [UInt8] { limits[refusal] ?? [] }
        func body(dailyShareOf size: ClientGroup.Size) -> [UInt8] { dailyShare[size] ?? [] }
    }

    /// The answer for `request` asked by `client`: memory, PostgreSQL, the upstream (see the type). A client is
    /// admitted only with its share left (``refusal(for:client:now:)``) and fewer than
    /// ``UpstreamLimits/Waiting/requestsPerClient`` of its requests under way, so that no client holds the
    /// database for others — unless it joins work already under way for its key, which costs nothing more. `refusalChecked`: the caller (the route, on the event loop) has just asked
    /// ``refusal(for:client:now:)``, so it is not asked again.
    public func response(
        for request: Source.Request, client: Spender?, now: Date = Date(), refusalChecked: Bool = false
    ) async -> OnDemandResponse {
        if let cached = cachedResponse(for: request, now: now) { return cached }
        return await admitted(request, client: client, now: now, refusalChecked: refusalChecked) {
            await answer(request, client: client, now: now)
        }
    }

    /// `body` run for `client` once admitted (see ``response(for:client:now:refusalChecked:)``): for a route that does
    /// work of its own before the engine's (places looks up the nearest stored point), then calls
    /// ``admittedResponse(for:client:now:)``.
    public func admitted(
        _ request: Source.Request, client: Spender?, now: Date = Date(), refusalChecked: Bool = false,
        _ body: () async -> OnDemandResponse
    ) async -> OnDemandResponse {
        if !refusalChecked, let refused = refusal(for: request, client: client, now: now) { return refused }
        guard let groups = client?.groups else { return await body() }
        // Joining a call under way for the key costs no upstream call: not counted against the requests at once (30
        // cold requests for one cell from a carrier's NAT are answered by the one call).
        if joins(source.key(of: request)) { return await body() }
        guard upstream.limits.start(groups) else {
            misses?.increment()
            unavailableAnswers?.increment()
            upstream.refusals.count(UpstreamRefusal.concurrency.rawValue, group: groups[upstream.limits.busiest(groups) ?? 0].size)
            return .unavailable(body: refusalBodies.body(.concurrency), retryAfter: 1, clientShare: true)
        }
        defer { upstream.limits.finished(groups) }
        return await body()
    }

    /// Whether a request for `key` would join work under way for it (the PostgreSQL read or the upstream call).
    private func joins(_ key: Source.Key) -> Bool {
        loading.isRunning(key) || gate.isCalling(key)
    }

    /// The answer for a request already admitted (inside ``admitted(_:client:now:_:)``).
    public func admittedResponse(for request: Source.Request, client: Spender?, now: Date = Date()) async -> OnDemandResponse {
        if let cached = cachedResponse(for: request, now: now) { return cached }
        return await answer(request, client: client, now: now)
    }

    fileprivate static func shareSpent(_ size: ClientGroup.Size, upstream: String) -> String {
        switch size {
        case .device: "this device has used its share of \(upstream)'s daily quota"
        case .anonymous: "clients without an App Attest token have used their pool of \(upstream)'s daily quota (an attested app has a share of its own)"
        default: "this client's \(size.isSubscriber ? "address" : "network") (\(size.rawValue)) has used its share of \(upstream)'s daily quota"
        }
    }

    private func answer(_ request: Source.Request, client: Spender?, now: Date) async -> OnDemandResponse {
        misses?.increment()
        let groups = client?.groups ?? []
        let key = source.key(of: request)
        let stored = await loading.value(for: key) { [source, logger, storedReads] in
            storedReads?.increment()
            do { return try await source.stored(key) } catch {
                logger.warning("could not read a stored answer", metadata: ["key": "\(key)", "error": "\(error)"])
                return nil
            }
        }
        // The newest answer known: memory may hold a newer one than PostgreSQL (its write failed).
        var last = stored.map { Held(value: $0.value, fetchedAt: $0.fetchedAt, until: $0.fetchedAt, stale: false) }
        if let held = data.peek(key), held.fetchedAt > last?.fetchedAt ?? .distantPast { last = held }
        source.noteMiss(key, last: last?.value, now: now)
        let popular = askers.asked(key, by: groups.first)
        if let last, now.timeIntervalSince(last.fetchedAt) < source.lifetime(of: last.value, for: key, now: now) {
            return remember(last.value, fetchedAt: last.fetchedAt, stale: false, key: key, request: request, now: now)
        }
        // A client that may not spend (no token where one is required) is served what is held, else refused.
        if let refusal = client?.refusal {
            let reason = refusal.refused()
            if let last, source.mayServeStale(last.value, now: now) {
                return remember(last.value, fetchedAt: last.fetchedAt, stale: true, key: key, request: request, now: now)
            }
            unavailableAnswers?.increment()
            return .unauthorized("\(source.nothingToServe): \(reason)")
        }
        let outcome = await gate.call(key, clients: groups) { [self] in
            // A call for this key may have landed between our look at memory and this one starting.
            if let held = data.peek(key), !held.stale, now < held.until { return .value(held.value, fetchedAt: held.fetchedAt) }
            if let quota = upstream.quota {
                let units = source.units(key)
                switch await quota.take(units: units, groups: groups, reserved: popular, now: now) {
                case .granted:
                    break
                case .spent(let retryAfter, let reserved):
                    upstream.refusals.count(reserved ? "reserve" : "daily_quota")
                    let why = reserved
                        ? "what is left of \(upstream.name)'s daily quota for this server is kept for answers many users ask for"
                        : "\(upstream.name)'s daily quota for this server is spent\(upstream.settings.resets)"
                    return .failed(why, retryAfter: RetryAfter.seconds(Double(retryAfter)))
                case .shareSpent(let index, let retryAfter):
                    upstream.refusals.count("daily_share", group: groups[index].size)
                    return .failed(Self.shareSpent(groups[index].size, upstream: upstream.name), retryAfter: RetryAfter.seconds(Double(retryAfter)), clientShare: true)
                case .unknown:
                    upstream.refusals.count("quota_unknown")
                    return .failed("\(upstream.name)'s daily quota could not be counted (the database did not answer)", retryAfter: settings.retryAfterFailure)
                }
            }
            return await fetch(key, now: now)
        }
        let reason: String
        let retryAfter: Int
        var clientShare = false
        switch outcome {
        case .answered(.value(let value, let fetchedAt)):
            // Everyone who joined the call shares one rendering.
            if let rendering = renderings.peek(request), rendering.fetchedAt == fetchedAt, now < rendering.until { return rendering.response }
            return remember(value, fetchedAt: fetchedAt, stale: false, key: key, request: request, now: now)
        case .answered(.failed(let why, let seconds, let share)):
            (reason, retryAfter, clientShare) = (why, seconds, share)
        case .refused(let refused):
            (reason, retryAfter, clientShare) = upstream.refusals.refused(
                refused.refusal, retryAfter: refused.retryAfter, group: refused.by.map { groups[$0].size }, upstream: upstream.name)
        }
        if let last, source.mayServeStale(last.value, now: now) {
            return remember(last.value, fetchedAt: last.fetchedAt, stale: true, key: key, request: request, now: now)
        }
        unavailableAnswers?.increment()
        return .unavailable("\(source.nothingToServe): \(reason)", retryAfter: retryAfter, clientShare: clientShare)
    }

    /// One upstream call (the caller holds a token and the quota's units): check, store, remember.
    private func fetch(_ key: Source.Key, now: Date) async -> Fetched {
        upstream.calls?.increment()
        let reply: UpstreamReply<Source.Value>? = await FetchRunner.capturingFailures(runner, of: kind) { [self] in
            do {
                return (try await source.fetch(key), nil)
            } catch {
                logger.warning("\(upstream.name) failed", metadata: ["request": "\(key)", "error": "\(error)"])
                report.failed(error, isAnswer: !(error is UpstreamError))
                return (nil, "\(error)")
            }
        }
        switch reply {
        case nil:
            return .failed("\(upstream.name) failed", retryAfter: settings.retryAfterFailure)
        case .refused(let message, let detail, let pause)?:
            let seconds = pause ?? Double(upstream.settings.pauseAfterRefusal)
            upstream.limits.pause(seconds: seconds)
            logger.error("\(upstream.name) refused this server's requests; pausing calls", metadata: ["why": "\(detail)", "pause_s": "\(Int(seconds))"])
            report.answered(error: "\(detail) (pausing \(Int(seconds)) s)")
            return .failed(message, retryAfter: RetryAfter.seconds(seconds))
        case .throttled(let message, let detail, let asked)?:
            let seconds = min(RetryAfter.limit, max(1, asked ?? upstream.settings.pauseAfterThrottle))
            upstream.limits.pause(seconds: Double(seconds))
            logger.warning("\(upstream.name) is rate-limiting this server; pausing calls", metadata: ["pause_s": "\(seconds)"])
            report.answered(error: "\(detail) (pausing \(seconds) s)")
            return .failed(message, retryAfter: seconds)
        case .answer(let value)?:
            report.answered()
            let fetchedAt = Date()
            do {
                try await source.store(value, for: key, fetchedAt: fetchedAt)
            } catch {
                logger.warning("could not store an answer; serving it anyway", metadata: ["error": "\(error)"])
            }
            keep(Held(value: value, fetchedAt: fetchedAt, until: fetchedAt.addingTimeInterval(source.lifetime(of: value, for: key, now: fetchedAt)), stale: false), for: key)
            return .value(value, fetchedAt: fetchedAt)
        }
    }

    // MARK: Memory

    private func remember(_ value: Source.Value, fetchedAt: Date, stale: Bool, key: Source.Key, request: Source.Request, now: Date) -> OnDemandResponse {
        let until = stale ? now.addingTimeInterval(settings.provisional.seconds) : fetchedAt.addingTimeInterval(source.lifetime(of: value, for: key, now: now))
        let held = Held(value: value, fetchedAt: fetchedAt, until: until, stale: stale)
        keep(held, for: key)
        return render(held, for: request, now: now)
    }

    /// Holds `held` for `key`; renderings made from other data are dropped with the old answer.
    private func keep(_ held: Held, for key: Source.Key) {
        let previous = data.peek(key)
        data.set(held, for: key, cost: source.cost(of: held.value))
        if let previous, previous.fetchedAt == held.fetchedAt, previous.stale == held.stale { return }
        for request in source.requests(of: key) { renderings.remove(request) }
    }

    /// The answer for `request` from `held` at `now`, kept until it runs out, its own end (a departure leaves)
    /// or ``rerenderAfter``.
    private func render(_ held: Held, for request: Source.Request, now: Date) -> OnDemandResponse {
        let version = source.renderingVersion
        let rendering = source.render(held.value, for: request, now: now)
        let until = min(held.until, rendering.until ?? held.until)
        let maxAge: Int
        var fetchedAt: Date?
        if source.reportsAge, case .document = rendering.body {
            // `max-age` from the fetch, and each request is told its `Age`.
            maxAge = max(0, Int(until.timeIntervalSince(held.fetchedAt).rounded(.down)))
            fetchedAt = held.fetchedAt
        } else {
            let left = until.timeIntervalSince(now)
            maxAge = max(0, Int(source.reportsAge ? left.rounded(.down) : left.rounded()))
        }
        if held.stale { staleAnswers?.increment() }
        let response = OnDemandResponse.rendered(rendering.body, maxAge: maxAge, stale: held.stale, source: report.source, fetchedAt: fetchedAt)
        renderings.set(
            Rendering(response: response, fetchedAt: held.fetchedAt, until: min(until, now.addingTimeInterval(Self.rerenderAfter)), version: version),
            for: request, cost: rendering.bytes + 256)
        return response
    }

    // MARK: Health

    /// `{"bytes":…,"entries":…}` and the source's own members: what memory holds.
    public var cacheJSON: String {
        "{\"bytes\":\(data.bytes + renderings.bytes),\"entries\":\(renderings.count)\(source.cacheMembers(keysHeld: data.count))}"
    }

    /// Members of the source's `/health` object: the upstream (reachable, pause, budget, quota), the source's
    /// own, and `cache`.
    public func healthJSON() -> String {
        upstream.healthMembers(report) + source.healthMembers() + ",\"cache\":\(cacheJSON)"
    }
}
