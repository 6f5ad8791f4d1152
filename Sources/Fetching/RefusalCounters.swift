import Metrics

/// `/metrics` counters of the requests an on-demand upstream was not asked for, one per reason
/// (``UpstreamGate``'s refusals and any of the feature's own, e.g. `daily_quota`).
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
}
