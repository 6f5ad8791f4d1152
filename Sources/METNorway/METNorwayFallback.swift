import Basics
import Feature
import Foundation
import Identity
import Limits
import METNorwayFormat
import Metrics
import OnDemand
import Scheduling

/// MET Norway's Locationforecast standing in for another upstream (FMI, for the weather): asked only for a point that
/// upstream could not answer, and then kept within MET's terms (``METNorwaySource``) by the engine's core: per point
/// memory, then PostgreSQL (every replica's answers), MET itself
/// only after the held copy's `Expires`, with a request budget and each client's share of it, one call per cell at a
/// time; when MET cannot be asked or fails, the last copy is served stale.
public final class METNorwayFallback: Sendable {
    public struct Settings: Sendable {
        public var url = METNorwayClient.defaultURL
        /// MET allows 20 requests a second for an application as a whole; a fallback needs far less.
        public var budget = BudgetSettings(ratePerMinute: 30, burst: 10, clientShare: 0.25)
        public var maximumRows = 10_000

        public init() {}
    }

    public struct Found: Sendable {
        public var forecast: METNorwayForecast
        public var fetchedAt: Date
        /// Past MET's `Expires`: MET could not be asked again.
        public var stale: Bool
    }

    let core: OnDemandCore<METNorwaySource>

    public init(
        client: METNorwayClient, store: METNorwayStore, budget: BudgetSettings, memoryBytes: Int = 8 << 20,
        clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }, metrics: MetricsRegistry? = nil,
        spenders: Spenders = Spenders()
    ) {
        var upstream = OnDemandUpstream.Settings(
            budget: budget, pauseAfterRefusal: Int(METNorwaySource.pauseAfterRefusal), pauseAfterThrottle: METNorwaySource.pauseAfterThrottling)
        // What the asking feature holds stands when MET cannot be asked at once: no waiting for a token.
        upstream.waiting = .never
        core = OnDemandCore(
            kind: "metno", source: METNorwaySource(client: client, store: store),
            upstream: OnDemandUpstream(
                name: "MET Norway", metric: "metno", settings: upstream, quota: nil, clock: clock, metrics: metrics, spenders: spenders),
            report: UpstreamReport(source: "metno", board: nil), settings: OnDemandSettings(provisional: .seconds(0)),
            memoryBytes: memoryBytes, metrics: metrics)
    }

    /// `"metno":{"upstream":…,"paused_s":…,"budget":…}` for `/health` (members of the asking feature's source).
    /// `metno`: MET Norway's upstream state, budget and pause.
    public func health() -> (any Encodable & Sendable) {
        Health(metno: core.health())
    }

    struct Health: Encodable, Sendable {
        let metno: MergedObject
    }

    /// MET Norway's forecast for the point: the held one while MET says it holds, else MET's newer one, else the held
    /// one stale; `nil` when none is held and MET cannot be asked or fails.
    public func forecast(for point: METNorwayPoint, client: Spender?, now: Date = Date()) async -> Found? {
        // A stale copy is never held past its answer (no provisional time): held means before MET's Expires.
        guard case .answer(let answer) = await core.outcome(for: point, client: client, now: now) else { return nil }
        return Found(forecast: answer.value.forecast, fetchedAt: answer.value.fetchedAt, stale: answer.stale)
    }
}
