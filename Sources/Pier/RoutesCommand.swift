import ArgumentParser
import Metrics
import Operations
import Postgres

/// `pier routes`: every method and path `pier serve` answers, one per line (`GET /api/ships`), from the same
/// wiring as `serve`. Needs no database: the pool connects on first use, and listing routes uses none.
struct RoutesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routes", abstract: "List the routes `pier serve` answers (HEAD is implied by GET; OPTIONS is each public path's preflight).")

    func run() throws {
        let configuration = try Configuration.load()
        let pool = PostgresPool(configuration: .init(url: configuration.databaseURL ?? ""))
        let registry = MetricsRegistry()
        let sources = try Services(configuration: configuration, pool: pool, metrics: registry)
        let health = HealthRoute(version: PierCommand.version)
        let router = ServeCommand.router(configuration: configuration, sources: sources, health: health, registry: registry)
        for operation in router.operations { print(operation) }
    }
}
