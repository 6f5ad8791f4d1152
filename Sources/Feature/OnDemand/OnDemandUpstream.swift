import Basics
import Foundation
import Identity
import Limits
import Metrics
import Scheduling

/// One upstream as every ``OnDemand`` engine that asks it shares it: its name, its ``UpstreamLimits`` (the
/// budget with each client's share, the upstream's pause), its ``DailyQuota`` and the metrics of its calls
/// (`pier_<metric>_requests_total`, `pier_<metric>_failures_total`, `pier_<metric>_refusals_total{reason}`, `pier_<metric>_budget_tokens`,
/// `pier_<metric>_<unit>_left_today`).
public final class OnDemandUpstream: Sendable {
    public struct Settings: Sendable {
        /// Requests a minute, the burst and each client's share.
        public var budget: BudgetSettings
        /// How long a client ahead of its share waits, and how many of its requests may be under way at once.
        public var waiting = UpstreamLimits<ClientGroup>.Waiting()
        /// Each client group's share of a day and the reserve for popular answers.
        public var shares = DailyShares()
        /// Whether the upstream counts calls per day at all (`/health` shows `quota`, `null` when off).
        public var hasDailyQuota: Bool
        /// Units a day (`nil`: no quota).
        public var perDay: Int?
        /// Where the upstream's day starts.
        public var timeZone: TimeZone
        /// What the quota counts, in the metric's name (`quota`, `credits`).
        public var unit: String
        /// Said when the quota is spent, after "…'s daily quota for this server is spent" (` (it resets at midnight in Sydney)`).
        public var resets: String
        /// No calls for this long after the upstream refused the key or the requests.
        public var pauseAfterRefusal: Int
        /// No calls for this long after a `429` without `Retry-After`.
        public var pauseAfterThrottle: Int

        public init(
            budget: BudgetSettings, perDay: Int? = nil, timeZone: TimeZone = DailyQuota.utc, unit: String = "quota",
            resets: String = "", pauseAfterRefusal: Int = 600, pauseAfterThrottle: Int = 600
        ) {
            self.budget = budget
            self.perDay = perDay
            hasDailyQuota = perDay != nil
            self.timeZone = timeZone
            self.unit = unit
            self.resets = resets
            self.pauseAfterRefusal = pauseAfterRefusal
            self.pauseAfterThrottle = pauseAfterThrottle
        }
    }

    /// The upstream's name in messages (`OpenWeather`).
    public let name: String
    /// Its name in metrics and in `upstream_quota` (`openweather`).
    public let metric: String
    public let settings: Settings
    public let limits: UpstreamLimits<ClientGroup>
    public let quota: DailyQuota?
    /// Who a request counts as when it would spend (asked by the routes only past memory).
    public let spenders: Spenders
    let calls: Counter?
    /// Calls that failed, were throttled or refused.
    let failures: Counter?
    let refusals: RefusalCounters

    /// - Parameters:
    ///   - quota: the daily quota (``FeatureContext/onDemandUpstream(_:metric:settings:)`` makes it from the settings).
    ///   - clock: seconds on a monotonic clock (tests pass their own).
    public init(
        name: String, metric: String, settings: Settings, quota: DailyQuota?,
        clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }, metrics: MetricsRegistry?,
        spenders: Spenders = Spenders()
    ) {
        self.name = name
        self.metric = metric
        self.settings = settings
        self.quota = quota
        self.spenders = spenders
        limits = UpstreamLimits(budget: settings.budget, waiting: settings.waiting, clock: clock)
        calls = metrics?.counter("pier_\(metric)_requests_total", help: "Requests made to \(name).")
        failures = metrics?.counter("pier_\(metric)_failures_total", help: "Requests to \(name) that failed, were throttled or refused.")
        refusals = RefusalCounters(
            metrics: metrics, name: "pier_\(metric)_refusals_total",
            help: "Requests not sent to \(name), by reason (budget, client share, pause, requests at once, daily quota, reserve, daily share) and the size of the client group whose share was spent.",
            reasons: UpstreamRefusal.allCases.map(\.rawValue) + RefusalCounters.quotaReasons)
        if let metrics {
            let budget = limits.budget
            metrics.gauge("pier_\(metric)_budget_tokens", help: "Requests to \(name) that could be made at once now.") { budget.snapshot().tokens }
            if let quota {
                metrics.gauge("pier_\(metric)_\(settings.unit)_left_today", help: "\(name)'s daily \(settings.unit) left today (all replicas).") {
                    let snapshot = quota.snapshot()
                    return Double(snapshot.limit - (snapshot.used ?? 0))
                }
            }
        }
    }

    /// `"upstream":…,"paused_s":…,"budget":{…}` and, for an upstream with a daily quota, `"quota":{…}`.
    func healthMembers(_ report: UpstreamReport) -> String {
        report.healthMembers(limits: limits, quota: quota, withQuota: settings.hasDailyQuota)
    }
}
