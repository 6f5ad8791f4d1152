import Metrics

/// `/metrics` counters of the requests an on-demand upstream was not asked for, one per reason
/// (``UpstreamRefusal``s and any of the feature's own, e.g. `daily_quota`).
public struct RefusalCounters: Sendable {
    private let counters: [String: Counter]

    /// - Parameter name: the metric (`pier_tfnsw_refusals_total`), labelled `reason`.
    public init(metrics: MetricsRegistry?, name: String, help: String, reasons: [String]) {
        var counters: [String: Counter] = [:]
        for reason in reasons { counters[reason] = metrics?.counter(name, help: help, labels: [("reason", reason)]) }
        self.counters = counters
    }

    public func count(_ reason: String) {
        counters[reason]?.increment()
    }

    /// Counts a refusal of `gate` and says it as a route answers it: the reason naming `upstream`, `Retry-After`
    /// in whole seconds, and whether it is this client's share that is spent (`429` rather than `503`).
    public func refused(_ refusal: UpstreamRefusal, retryAfter seconds: Double, upstream: String) -> (reason: String, retryAfter: Int, clientShare: Bool) {
        count(refusal.rawValue)
        return (refusal.reason(upstream: upstream), RetryAfter.seconds(seconds), refusal == .clientShare)
    }
}
