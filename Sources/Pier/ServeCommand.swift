import ArgumentParser
import Dispatch
import Feature
import FeatureCommands
import Foundation
import Glibc
import HTTPServer
import Logging
import Metrics
import Operations
import Postgres
import Replay
import Scheduling

/// `pier serve`: runs the HTTP server until SIGTERM or SIGINT.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the HTTP service.")

    @Option(help: "Address to listen on. Environment: HOST (default 0.0.0.0).")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one. Environment: PORT (default 8080).")
    var port: Int?

    @Option(name: .customLong("event-loops"), help: "Event loop threads. Environment: PIER_EVENT_LOOPS (default: one per core).")
    var eventLoops: Int?

    @Option(name: .customLong("max-connections"), help: "Open connections before new ones get 503. Environment: PIER_MAX_CONNECTIONS (default 10000).")
    var maxConnections: Int?

    @Option(name: .customLong("log-level"), help: "debug, info, warning or error. Environment: LOG_LEVEL (default info).")
    var logLevel: String?

    @Flag(help: "Serve the bundled recordings (PIER_DEMO_DIR, default Demo), dates moved to now, offline, in the database <name>_demo.")
    var demo = false

    @Option(help: "Use a capture folder (pier fetch --save, PIER_SAVE_SUSPECT_DIR) as the upstreams, exactly as recorded.")
    var replay: String?

    func run() throws {
        var overrides: [String: String] = [:]
        if let host { overrides["HOST"] = host }
        if let port { overrides["PORT"] = String(port) }
        if let eventLoops { overrides["PIER_EVENT_LOOPS"] = String(eventLoops) }
        if let maxConnections { overrides["PIER_MAX_CONNECTIONS"] = String(maxConnections) }
        if let logLevel { overrides["LOG_LEVEL"] = logLevel }
        var configuration = try Configuration.load(overrides: overrides)
        Configuration.bootstrapLogging(configuration)
        let logger = Logger(label: "pier")
        let upstream = try UpstreamReplay.start(demo ? configuration.demoDirectory : replay, moveToNow: demo, into: &configuration, logger: logger)
        defer { upstream?.stop() }
        if demo {
            configuration.servingDemo = true
            let prepared = try configuration.databaseURL.map(DemoDatabase.prepare)
            configuration.databaseURL = prepared?.url
            configuration.server.extraHeaders.append((name: "X-Pier-Demo", value: "true"))
            logger.info("demo mode: bundled recordings, database \(prepared?.database ?? "?")")
        }

        // Liveness answers even when every connection is taken (the container's and Caddy's health checks).
        configuration.server.livenessPath = HealthRoute.livePath
        // The features read their settings before anything connects: a bad one stops start-up at once.
        let pool = try Database.pool(configuration)
        let registry = MetricsRegistry()
        let sources = try Services(configuration: configuration, pool: pool, metrics: registry, replay: upstream)
        Configuration.warnAboutUnknownVariables(sources.unknownVariables)
        try Database.migrateAtStart(pool, configuration, logger: logger)
        // Replicas share one database: one of them (the advisory-lock holder) fetches, and every process
        // reloads a source when another announces new data for it.
        let databaseURL = configuration.databaseURL ?? ""
        let election = configuration.fetch.enabled ? LeaderElection(url: databaseURL, interval: configuration.fetch.leaderCheck) : nil
        let scheduler = sources.scheduler(isLeader: { election?.isLeader ?? false })
        // New data from another process: reload it, then the run history that says how fresh it is, so that
        // every replica's /health describes the data it serves at once.
        let changes = ChangeFeed(url: databaseURL, notices: sources.notices) { source in
            Task {
                await sources.reload(source)
                await scheduler.reloadBoard(only: source?.name)
            }
        }
        sources.runner.onSuccess { source in
            await changes.publish(source, on: pool)
            await sources.stored(source)
        }
        do {
            try runBlocking {
                try await sources.load()
                await scheduler.prepare()
            }
        } catch {
            logger.error("cannot start: stored data could not be loaded", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }

        ServiceMetrics.register(in: registry, version: PierCommand.version, leader: election)
        let health = HealthRoute(
            version: PierCommand.version, readiness: sources.features.flatMap(\.readiness), sources: sources.board,
            fetcher: { election.map { $0.isLeader ? "leader" : "standby" } ?? "off" }, details: sources.healthDetails,
            mode: demo ? "demo" : "live", members: sources.healthMembers)
        let router = Self.router(configuration: configuration, sources: sources, health: health, registry: registry)

        let server = try HTTPServer(
            configuration: configuration.server, router: router, logger: Logger(label: "pier.http"), metrics: registry)
        let signals = Self.onTermination { server.shutdown() }
        try server.start()
        changes.start()
        let features = sources.features
        let background = Task {
            await withTaskGroup(of: Void.self) { group in
                for feature in features { group.addTask { await feature.run() } }
            }
        }
        if let election {
            election.start()
            scheduler.start()
        } else {
            logger.info("background fetching is off (PIER_FETCH=off); serving what PostgreSQL holds")
        }
        server.wait()
        signals.forEach { $0.cancel() }
        background.cancel()
        scheduler.stop()
        election?.stop()
        changes.stop()
        pool.close()
        logger.info("exit")
    }

    /// Every route `pier serve` answers, in one place (`pier routes` lists them; a test holds them to `openapi.yaml`).
    static func router(configuration: Configuration, sources: Services, health: HealthRoute, registry: MetricsRegistry) -> Router {
        var router = Router()
        // The preflight allows what the features' clients send (App Attest's token).
        router.requestHeaders += sources.features.flatMap(\.requestHeaders)
        health.register(in: &router)
        MetricsRoute.register(in: &router, registry: registry)
        OpenAPIRoute.register(in: &router)
        sources.register(in: &router)
        if configuration.benchRoutes { BenchmarkRoute.register(in: &router) }
        return router
    }

    /// Calls `action` on the first SIGTERM or SIGINT; a second one exits at once.
    private static func onTermination(_ action: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "pier.signals")
        let received = SignalCount()
        return [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if received.increment() > 1 { _exit(1) }
                action()
            }
            source.resume()
            return source
        }
    }
}

/// Counts termination signals; only touched on the signal queue, but must be Sendable to be captured.
private final class SignalCount: @unchecked Sendable {
    private var count = 0
    func increment() -> Int {
        count += 1
        return count
    }
}
