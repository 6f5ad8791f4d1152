import Basics
import Foundation
import Identity
import Limits
import Metrics
import Scheduling

/// One upstream as every ``OnDemand`` engine that asks it shares it: its name, its ``UpstreamLimits`` (the
/// budget with each client's share, the upstream's pause), its ``DailyQuota`` and the metrics of its calls
/// (`pier_upstream_requests_total`, `…_failures_total`, `…_refusals_total{reason,group}`, `…_budget_tokens` and, with a
/// daily quota, `pier_upstream_quota_limit`, `…_used`, `…_left`, `…_reserve`, `…_resets_timestamp_seconds`: every
/// family labelled `upstream="<metric>"`, so one dashboard panel or alert rule covers every upstream).
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
        let labels = [("upstream", metric)]
        calls = metrics?.counter("pier_upstream_requests_total", help: "Requests made to each upstream.", labels: labels)
        failures = metrics?.counter(
            "pier_upstream_failures_total", help: "Requests to each upstream that failed, were throttled or refused.", labels: labels)
        refusals = RefusalCounters(
            metrics: metrics, name: "pier_upstream_refusals_total",
            help: "Requests not sent to each upstream, by reason (budget, client share, pause, requests at once, daily quota, reserve, daily share) and the size of the client group whose share was spent.",
            labels: labels, reasons: UpstreamRefusal.allCases.map(\.rawValue) + RefusalCounters.quotaReasons, kinds: spenders.kinds)
        if let metrics {
            let budget = limits.budget
            metrics.gauge("pier_upstream_budget_tokens", help: "Requests to each upstream that could be made at once now.", labels: labels) {
                budget.snapshot().tokens
            }
            if let quota { Self.publish(quota, unit: settings.unit, labels: labels, in: metrics) }
        }
    }

    /// The daily quota's gauges (all replicas' count, as PostgreSQL last told this process): what an operator's alert
    /// extrapolates to the end of the upstream's own day, and the reserve it should not reach for anything but popular
    /// answers. Units: requests, or Geoapify's credits (`/health` says which).
    private static func publish(_ quota: DailyQuota, unit: String, labels: MetricsRegistry.Labels, in metrics: MetricsRegistry) {
        metrics.gauge("pier_upstream_quota_limit", help: "Each upstream's daily quota (requests or credits).", labels: labels) {
            Double(quota.snapshot().limit)
        }
        metrics.gauge("pier_upstream_quota_used", help: "Each upstream's daily quota used today (all replicas).", labels: labels) {
            Double(quota.snapshot().used ?? 0)
        }
        metrics.gauge("pier_upstream_quota_left", help: "Each upstream's daily quota left today (all replicas).", labels: labels) {
            let snapshot = quota.snapshot()
            return Double(max(0, snapshot.limit - (snapshot.used ?? 0)))
        }
        metrics.gauge(
            "pier_upstream_quota_reserve", help: "The part of each upstream's day kept for answers more than one client asked for.", labels: labels
        ) { Double(quota.snapshot().reserve) }
        metrics.gauge(
            "pier_upstream_quota_resets_timestamp_seconds", help: "Unix time at which each upstream's day ends (its own time zone).", labels: labels
        ) { quota.dayEnds().timeIntervalSince1970 }
    }

    /// `upstream`, `paused_s`, `budget` and, for an upstream with a daily quota, `quota`.
    public func health(_ report: UpstreamReport) -> UpstreamHealth {
        report.health(limits: limits, quota: quota, withQuota: settings.hasDailyQuota)
    }
}
