import ArgumentParser
import Dispatch
import Glibc
import HTTPServer
import Logging
import Metrics
import Operations

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

    func run() throws {
        var environment = Configuration.processEnvironment()
        if let host { environment["HOST"] = host }
        if let port { environment["PORT"] = String(port) }
        if let eventLoops { environment["PIER_EVENT_LOOPS"] = String(eventLoops) }
        if let maxConnections { environment["PIER_MAX_CONNECTIONS"] = String(maxConnections) }
        if let logLevel { environment["LOG_LEVEL"] = logLevel }
        let configuration: Configuration
        do {
            configuration = try Configuration.fromEnvironment(environment)
        } catch {
            throw ValidationError("\(error)")
        }
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        let logger = Logger(label: "pier")

        let registry = MetricsRegistry()
        var router = Router()
        HealthRoute(version: PierCommand.version).register(in: &router)
        MetricsRoute.register(in: &router, registry: registry)
        if configuration.benchRoutes { BenchmarkRoute.register(in: &router) }

        let server = try HTTPServer(
            configuration: configuration.server, router: router, logger: Logger(label: "pier.http"), metrics: registry)
        let signals = Self.onTermination { server.shutdown() }
        try server.start()
        server.wait()
        signals.forEach { $0.cancel() }
        logger.info("exit")
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
