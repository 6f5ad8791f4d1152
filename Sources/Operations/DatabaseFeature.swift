import Feature
import HTTPServer
import Metrics
import Postgres
import Settings

/// PostgreSQL as `/health` and the metrics show it: an operational monitor, started from the feature list like any
/// feature. It pings once before serving (the first `/health` is already right), then every
/// ``Settings/pingInterval`` while `pier serve` runs; while PostgreSQL does not answer, `/health` says `database:
/// unreachable` with `503` (its ``readiness``). Its gauges: `pier_postgres_up` and the pool's connections.
public struct DatabaseFeature: Feature {
    public var name: String { "database" }
    private let monitor: DatabaseMonitor
    private let settings: Settings

    public struct Settings: Sendable {
        /// `PIER_HEALTH_PING_INTERVAL_S`: how often the database's state is refreshed.
        public var pingInterval: Duration = .seconds(2)

        public init() {}

        public init(_ reader: SettingsReader) throws {
            pingInterval = try reader.seconds("PIER_HEALTH_PING_INTERVAL_S", default: pingInterval, meaning: "how often `/health`'s database status is refreshed (each ping bounded to 1 s; after a first success, two failed pings in a row make it `unreachable`)")
        }
    }

    public init(settings: Settings, context: FeatureContext) {
        self.settings = settings
        let changes = context.metrics?.counter(
            "pier_postgres_server_changes_total", help: "Times the PostgreSQL server this replica reaches changed (a failover or a switchover).")
        monitor = DatabaseMonitor(pool: context.pool) { changes?.increment() }
        if let metrics = context.metrics { Self.register(in: metrics, monitor: monitor, pool: context.pool) }
    }

    /// `database_server`: the role, how long the same server has been reached, its synchronous standbys.
    public var healthMembers: [String: @Sendable () -> any Encodable & Sendable] {
        let monitor = self.monitor
        return ["database_server": { monitor.server }]
    }

    public func load() async throws {
        await monitor.check()
    }

    public func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: settings.pingInterval)
            if Task.isCancelled { break }
            await monitor.check()
        }
    }

    /// No routes: `/health` and `/metrics` say what it knows.
    public func register(in router: inout Router) {}

    public var readiness: [Readiness] { [monitor.readiness] }

    private static func register(in registry: MetricsRegistry, monitor: DatabaseMonitor, pool: PostgresPool) {
        registry.gauge("pier_postgres_up", help: "1 while PostgreSQL answers this replica's pings, 0 while /health says unreachable.") {
            monitor.state == .ok ? 1 : 0
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
        registry.gauge(
            "pier_postgres_synchronous_standbys",
            help: "Standbys confirming the primary's commits synchronously; NaN when this replica's role may not see them (grant it pg_monitor)."
        ) { monitor.server?.synchronousStandbys.map(Double.init) ?? .nan }
    }
}
