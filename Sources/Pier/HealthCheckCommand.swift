import ArgumentParser
import Feature
import FeatureCommands
import Operations
import UpstreamHTTP

/// `pier health-check`: exits 0 when the local server's liveness route (`/health/live`) answers 200 — the
/// container's HEALTHCHECK, so the runtime image needs no curl. Liveness, not readiness: a database outage
/// must not get a replica that still serves cached data restarted. `--ready` asks readiness instead (`/health`:
/// the database reached, its migrations applied): what `scripts/upgrade` waits for before it retires an old replica.
struct HealthCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health-check",
        abstract: "Exit 0 if http://127.0.0.1:$PORT/health/live (with --ready: /health) answers 200 (for container health checks and upgrades).")

    @Flag(help: "Ask readiness (/health: 503 while PostgreSQL is unreachable) instead of liveness.")
    var ready = false

    func run() throws {
        let configuration = try Configuration.load()
        let url = "http://127.0.0.1:\(configuration.server.port)\(ready ? HealthRoute.path : HealthRoute.livePath)"
        let healthy = try runBlocking {
            let client = UpstreamClient(configuration: .init(timeout: .seconds(3), maximumBodyBytes: 1 << 16, maximumRedirects: 0))
            return (try? await client.get(url)) != nil
        }
        if !healthy { throw ExitCode.failure }
    }
}
