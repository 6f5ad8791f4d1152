import Metrics
import Scheduling

/// The process's state for the operator's dashboards and alerts, beside what the server and the features count (the
/// database's gauges are ``DatabaseFeature``'s): the process itself (``ProcessMetrics``), the version and whether this
/// replica is the fetching leader. Sampled at each scrape.
public enum ServiceMetrics {
    /// - Parameter leader: `nil` when fetching is off here (`PIER_FETCH=off`): the gauge is then 0.
    public static func register(in registry: MetricsRegistry, version: String, leader: LeaderElection?) {
        ProcessMetrics.register(in: registry)
        registry.gauge("pier_build_info", help: "Always 1; the running version as a label.", labels: [("version", version)]) { 1 }
        registry.gauge("pier_fetch_leader", help: "1 on the replica that holds the fetch lock (exactly one replica should).") {
            leader?.isLeader == true ? 1 : 0
        }
    }
}
