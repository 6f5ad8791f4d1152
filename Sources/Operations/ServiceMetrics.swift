import Metrics
import Postgres
import Scheduling

/// The process's state for the operator's dashboards and alerts, beside what the server and the features count: the
/// process itself (``ProcessMetrics``), the version, whether PostgreSQL answers (``DatabaseMonitor``'s state, as
/// `/health` says it), the pool's connections and whether this replica is the fetching leader. Sampled at each scrape.
public enum ServiceMetrics {
    /// - Parameter leader: `nil` when fetching is off here (`PIER_FETCH=off`): the gauge is then 0.
    public static func register(in registry: MetricsRegistry, version: String, database: DatabaseMonitor, pool: PostgresPool, leader: LeaderElection?) {
        ProcessMetrics.register(in: registry)
        registry.gauge("pier_build_info", help: "Always 1; the running version as a label.", labels: [("version", version)]) { 1 }
        registry.gauge("pier_postgres_up", help: "1 while PostgreSQL answers this replica's pings, 0 while /health says unreachable.") {
            database.state == .ok ? 1 : 0
        }
        registry.gauge("pier_postgres_connections", help: "Connections of the pool, by state.", labels: [("state", "in_use")]) {
            let usage = pool.usage
            return Double(usage.open - usage.idle)
        }
        registry.gauge("pier_postgres_connections", help: "Connections of the pool, by state.", labels: [("state", "idle")]) {
            Double(pool.usage.idle)
        }
        registry.gauge("pier_postgres_connections_max", help: "The most connections the pool opens (PIER_DB_POOL_SIZE).") {
            Double(pool.configuration.maxConnections)
        }
        registry.gauge("pier_postgres_waiting", help: "Callers waiting for a free connection of the pool.") { Double(pool.usage.waiting) }
        registry.gauge("pier_fetch_leader", help: "1 on the replica that holds the fetch lock (exactly one replica should).") {
            leader?.isLeader == true ? 1 : 0
        }
    }
}
