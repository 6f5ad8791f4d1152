import ArgumentParser
import Metrics
import Operations
import Postgres

/// `pier routes`: every method and path `pier serve` answers, one per line (`GET /api/ships`), from the same
/// wiring as `serve`. Needs no database: nothing connects until the service starts.
struct RoutesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routes", abstract: "List the routes `pier serve` answers (HEAD is implied by GET).")

    func run() throws {
        var configuration = try Configuration.load()
        configuration.databaseURL = configuration.databaseURL ?? "postgresql:///unused"
        let pool = PostgresPool(configuration: .init(url: configuration.databaseURL ?? ""))
        let registry = MetricsRegistry()
        let sources = DataSources(configuration: configuration, pool: pool, metrics: registry)
        let health = HealthRoute(version: PierCommand.version, database: DatabaseMonitor(pool: pool, interval: .seconds(60)))
        let router = ServeCommand.router(configuration: configuration, sources: sources, health: health, registry: registry)
        for operation in router.operations { print(operation) }
    }
}
