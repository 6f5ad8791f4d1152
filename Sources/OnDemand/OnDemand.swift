import AnswerCaching
import Basics
import Foundation
import HTTPServer
import Identity
import Limits
import Metrics
import Scheduling

/// The ``OnDemandCore`` for answers routes send as they are, rendered as HTTP (``OnDemandResponse``): the core
/// decides the value or why there is none; this adapter keeps the HTTP answer of each request ready in memory, so a
/// hit costs one lookup, and renders a refusal by the one rule — `503`, `429` when it is this client's share that
/// is spent, `401` for a missing credential, with `Retry-After`; a stale answer marked (`X-Pier-Stale`).
///
/// A feature supplies only what is its own (``OnDemandSource``). Metrics: the core's, and
/// `pier_ondemand_cache_bytes{kind}`, `…_cache_entries{kind}`.
public final class OnDemand<Source: OnDemandSource>: Sendable {
    public typealias Settings = OnDemandSettings

    /// Times as seconds since the reference date, not `Date`s: Foundation's `Date` is a resilient type, so a value
    /// holding one is copied through its type's metadata — a rendering read from its table on every hit was.
    @usableFromInline
    struct Rendering: Sendable {
        @usableFromInline var response: OnDemandResponse
        @usableFromInline var fetchedAt: Double
        @usableFromInline var until: Double
        @usableFromInline var version: Int

        init(response: OnDemandResponse, fetchedAt: Date, until: Date, version: Int) {
            (self.response, self.fetchedAt, self.until) = (response, fetchedAt.timeIntervalSinceReferenceDate, until.timeIntervalSinceReferenceDate)
            self.version = version
        }
    }

    /// A held answer's `max-age` is counted when it is rendered; after this long it is rendered again, so that an
    /// answer fresh for a week does not tell a client on its last day that it holds for another week.
    static var rerenderAfter: TimeInterval { 3600 }

    public let core: OnDemandCore<Source>
    /// The source's ``OnDemandSource/renderingVersion``, asked through a closure holding the source (every hit asks it):
    /// asked of `core.source`, the whole source was copied for it (a reference count for each of its fields).
    @usableFromInline let renderingVersion: @Sendable () -> Int
    /// A copy of the source (a value: every field retained); the paths here read `core.source` where it lies.
    public var source: Source { core.source }
    public var kind: String { core.kind }
    public var settings: Settings { core.settings }
    public var upstream: OnDemandUpstream { core.upstream }
    private let refusalBodies: RefusalBodies
    @usableFromInline let renderings: AnswerTable<Source.Request, Rendering>

    /// - Parameters:
    ///   - report: the `/health` source the answers count for (its name marks stale answers).
    ///   - runner: captures the upstream's answers when a call fails (`PIER_SAVE_SUSPECT_DIR`).
    public init(
        kind: String, source: Source, upstream: OnDemandUpstream, report: UpstreamReport, settings: Settings = Settings(),
        runner: FetchRunner? = nil, metrics: MetricsRegistry? = nil
    ) {
        // Ready answers, under the one rule (AnswerCaching): a rendering costs its body and 256 bytes at least.
        let renderings = AnswerTable<Source.Request, Rendering>(entries: max(1, settings.cacheBytes / 2 / 256), bytes: settings.cacheBytes / 2)
        self.renderings = renderings
        renderingVersion = { source.renderingVersion }
        // Renderings made from other data are dropped with the old answer.
        core = OnDemandCore(
            kind: kind, source: source, upstream: upstream, report: report, settings: settings, memoryBytes: settings.cacheBytes / 2,
            runner: runner, metrics: metrics
        ) { key in
            for request in source.requests(of: key) { renderings.remove(request) }
        }
        refusalBodies = RefusalBodies(nothingToServe: source.nothingToServe, upstream: upstream.name, kinds: upstream.spenders.kinds)
        if let metrics {
            let core = core
            let labels = [("kind", kind.replacingOccurrences(of: "-", with: "_"))]
            metrics.gauge("pier_ondemand_cache_bytes", help: "Bytes of answers held in memory, by kind.", labels: labels) {
                Double(core.bytes + renderings.bytes)
            }
            metrics.gauge("pier_ondemand_cache_entries", help: "Answers held in memory, ready to send, by kind.", labels: labels) {
                Double(renderings.count)
            }
        }
    }

    /// Reads what `/health` shows before the first request: the day's quota and the newest stored answer.
    public func load() async throws {
        try await core.load()
    }

    // MARK: Answering

    /// The answer held in memory while it holds (the route's fast path, on the event loop); `nil` when PostgreSQL
    /// or the upstream must be asked.
    ///
    /// Inlinable: specialized in the feature for its source, a hit is one dictionary lookup under a lock; left generic,
    /// the table's lock and dictionary were found through generic metadata on every request.
    @inlinable
    public func cachedResponse(for request: Source.Request, now: Date = Date()) -> OnDemandResponse? {
        if let rendering = renderings[request], now.timeIntervalSinceReferenceDate < rendering.until, rendering.version == renderingVersion() {
            core.countHit()
            return rendering.response
        }
        return heldResponse(for: request, now: now)
    }

    /// The held answer rendered for `request` (and kept as its rendering), or `nil`.
    @usableFromInline
    func heldResponse(for request: Source.Request, now: Date) -> OnDemandResponse? {
        guard let held = core.held(core.source.key(of: request), now: now) else { return nil }
        core.hits?.increment()
        return render(held, for: request, now: now)
    }

    /// Whether memory holds an answer for `key` (fresh or not).
    public func holds(_ key: Source.Key) -> Bool {
        core.holds(key)
    }

    /// Decided from memory alone (``OnDemandCore/admission(for:client:now:)``): a refusal, rendered, or the request's
    /// claim for ``response(for:client:now:claim:)``.
    public func admission(for request: Source.Request, client: Spender?, now: Date = Date()) -> OnDemandAdmission<OnDemandResponse> {
        // A switch, not a generic map with a closure: this runs for every refused request.
        switch core.admission(for: core.source.key(of: request), client: client, now: now) {
        case .refused(let outcome): .refused(respond(outcome, to: request, now: now))
        case .admitted(let claim): .admitted(claim)
        }
    }

    /// The answer for `request` asked by `client`: memory, PostgreSQL, the upstream (``OnDemandCore``).
    /// `claim`: the caller (the route, on the event loop) has just asked ``admission(for:client:now:)``.
    public func response(
        for request: Source.Request, client: Spender?, now: Date = Date(), claim: OnDemandClaim? = nil
    ) async -> OnDemandResponse {
        if let cached = cachedResponse(for: request, now: now) { return cached }
        return await admitted(request, client: client, now: now, claim: claim) {
            respond(await core.answer(core.source.key(of: request), client: client, now: now), to: request, now: now)
        }
    }

    /// `body` run for `client` once admitted (``OnDemandCore/admitted(_:client:now:claim:refused:_:)``):
    /// for a route that does work of its own before the engine's (places looks up the nearest stored point), then
    /// calls ``admittedResponse(for:client:now:)``.
    public func admitted(
        _ request: Source.Request, client: Spender?, now: Date = Date(), claim: OnDemandClaim? = nil,
        _ body: () async -> OnDemandResponse
    ) async -> OnDemandResponse {
        await core.admitted(core.source.key(of: request), client: client, now: now, claim: claim, refused: { respond($0, to: request, now: now) }, body)
    }

    /// The answer for a request already admitted (inside ``admitted(_:client:now:claim:_:)``).
    public func admittedResponse(for request: Source.Request, client: Spender?, now: Date = Date()) async -> OnDemandResponse {
        if let cached = cachedResponse(for: request, now: now) { return cached }
        return respond(await core.answer(core.source.key(of: request), client: client, now: now), to: request, now: now)
    }

    // MARK: Rendering

    /// The HTTP answer of `outcome` for `request`: the one refusal rule.
    private func respond(_ outcome: OnDemandOutcome<Source.Value>, to request: Source.Request, now: Date) -> OnDemandResponse {
        switch outcome {
        case .answer(let answer):
            // Everyone who joined one call shares one rendering.
            if !answer.stale, let rendering = renderings[request], rendering.fetchedAt == answer.fetchedAt.timeIntervalSinceReferenceDate,
                now.timeIntervalSinceReferenceDate < rendering.until,
                rendering.version == renderingVersion()
            {
                return rendering.response
            }
            return render(answer, for: request, now: now)
        case .unavailable(let why):
            if case .decided(let decided, _) = why.why {
                return OnDemandResponse(cached: CachedResponse(why.response(body: refusalBodies.body(decided))), fetchedAt: nil)
            }
            return OnDemandResponse(cached: CachedResponse(why.httpError("\(core.source.nothingToServe): \(why.reason)").response), fetchedAt: nil)
        }
    }

    /// The bodies of the refusals decided from memory, made once: a flood's refusals cost what a hit costs, so none
    /// builds its sentence or its JSON again.
    private struct RefusalBodies: Sendable {
        private let bodies: [OnDemandUnavailable.Decided: [UInt8]]
        private let nothingToServe: String, upstream: String

        /// - Parameter kinds: every kind of group a spender may be counted in (``Spenders/kinds``).
        init(nothingToServe: String, upstream: String, kinds: [ClientGroup.Kind]) {
            self.nothingToServe = nothingToServe
            self.upstream = upstream
            let decided = UpstreamRefusal.allCases.map(OnDemandUnavailable.Decided.limits) + kinds.map(OnDemandUnavailable.Decided.dailyShare)
            bodies = Dictionary(decided.map { ($0, Self.make($0, nothingToServe: nothingToServe, upstream: upstream)) }) { first, _ in first }
        }

        /// Made in `init` for every kind the spenders know; made now for any other.
        func body(_ decided: OnDemandUnavailable.Decided) -> [UInt8] {
            bodies[decided] ?? Self.make(decided, nothingToServe: nothingToServe, upstream: upstream)
        }

        private static func make(_ decided: OnDemandUnavailable.Decided, nothingToServe: String, upstream: String) -> [UInt8] {
            HTTPResponse.errorBody("\(nothingToServe): \(decided.reason(upstream: upstream))")
        }
    }

    /// The answer for `request` from `held` at `now`, kept until it runs out, its own end (a departure leaves)
    /// or ``rerenderAfter``.
    private func render(_ held: OnDemandAnswer<Source.Value>, for request: Source.Request, now: Date) -> OnDemandResponse {
        let version = renderingVersion()
        let rendering = core.source.render(held.value, for: request, now: now)
        let until = min(held.until, rendering.until ?? held.until)
        let maxAge: Int
        var fetchedAt: Date?
        if core.source.reportsAge, case .document = rendering.body {
            // `max-age` from the fetch, and each request is told its `Age`.
            maxAge = max(0, Int(until.timeIntervalSince(held.fetchedAt).rounded(.down)))
            fetchedAt = held.fetchedAt
        } else {
            let left = until.timeIntervalSince(now)
            maxAge = max(0, Int(core.source.reportsAge ? left.rounded(.down) : left.rounded()))
        }
        if held.stale { core.staleAnswers?.increment() }
        let response = OnDemandResponse.rendered(rendering.body, maxAge: maxAge, stale: held.stale, source: core.report.source, fetchedAt: fetchedAt)
        renderings.set(
            Rendering(response: response, fetchedAt: held.fetchedAt, until: min(until, now.addingTimeInterval(Self.rerenderAfter)), version: version),
            for: request, cost: rendering.bytes + 256)
        return response
    }

    // MARK: Health

    /// What memory holds: `bytes`, `entries` and the source's own members.
    public var cacheHealth: MergedObject {
        MergedObject([CacheFigures(bytes: core.bytes + renderings.bytes, entries: renderings.count), core.source.cacheHealth(keysHeld: core.count)])
    }

    /// Members of the source's `/health` object: the upstream (reachable, pause, budget, quota), the source's
    /// own, and `cache`.
    public func health() -> MergedObject {
        MergedObject([core.health(), Cache(cache: cacheHealth)])
    }

    struct CacheFigures: Encodable, Sendable {
        let bytes: Int
        let entries: Int
    }

    struct Cache: Encodable, Sendable {
        let cache: MergedObject
    }
}
