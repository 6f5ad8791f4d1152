import Basics
import Metrics

/// `/metrics` counters of the requests an on-demand upstream was not asked for, by reason (``UpstreamRefusal``s
/// and the daily quota's: `daily_quota`, `reserve`, `daily_share`, `quota_unknown`) and, when a client's share
/// was spent, by the size of the group that spent it (`group="ipv4/24"`) — never an address.
public struct RefusalCounters: Sendable {
    private let counters: [String: Counter]
    private let byGroup: [String: [ClientGroup.Kind: Counter]]

    /// The daily quota's reasons (``DailyQuota/Decision``): the day spent, the part outside the reserve spent,
    /// a group's share spent, the count not readable.
    public static let quotaReasons = ["daily_quota", "reserve", "daily_share", "quota_unknown"]

    /// - Parameters:
    ///   - name: the metric (`pier_upstream_refusals_total`), labelled `labels` (`upstream="tfnsw"`), then `reason`
    ///     (and `group`).
    ///   - kinds: the kinds of groups counted (the addresses' and the features'): each has its series from the start.
    public init(
        metrics: MetricsRegistry?, name: String, help: String, labels: MetricsRegistry.Labels = [], reasons: [String],
        kinds: [ClientGroup.Kind] = ClientGroup.Kind.addresses
    ) {
        var counters: [String: Counter] = [:], byGroup: [String: [ClientGroup.Kind: Counter]] = [:]
        for reason in reasons { counters[reason] = metrics?.counter(name, help: help, labels: labels + [("reason", reason)]) }
        for reason in [UpstreamRefusal.clientShare.rawValue, UpstreamRefusal.concurrency.rawValue, "daily_share"] where reasons.contains(reason) {
            for kind in kinds {
                byGroup[reason, default: [:]][kind] = metrics?.counter(name, help: help, labels: labels + [("reason", reason), ("group", kind.label)])
            }
        }
        self.counters = counters
        self.byGroup = byGroup
    }

    /// Counts a refusal for `reason`; `group`: the kind of the client group whose share was spent (one not given at
    /// `init` is counted without it).
    public func count(_ reason: String, group: ClientGroup.Kind? = nil) {
        if let group, let counter = byGroup[reason]?[group] { counter.increment() } else { counters[reason]?.increment() }
    }

    /// Counts a refusal of `gate` and says it as a route answers it: the reason naming `upstream`, `Retry-After`
    /// in whole seconds, and whether it is this client's share that is spent (`429` rather than `503`).
    public func refused(_ refusal: UpstreamRefusal, retryAfter seconds: Double, group: ClientGroup.Kind? = nil, upstream: String)
        -> (reason: String, retryAfter: Int, clientShare: Bool)
    {
        count(refusal.rawValue, group: group)
        return (refusal.reason(upstream: upstream), RetryAfter.seconds(seconds), refusal.isClients)
    }
}
