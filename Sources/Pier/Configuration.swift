import Feature
import Foundation
import HTTPServer
import Identity
import ArgumentParser
import Logging
import Settings

/// The process's own settings — the server, the database, logging, the fetcher every feature shares — read once
/// from the environment (and command-line overrides). Each feature reads its own section from the same
/// environment (``Features``); nothing else reads environment variables. Every variable is documented in
/// docs/operations.md.
struct Configuration: Sendable {
    var server = ServerConfiguration()
    var logLevel: Logger.Level = .info
    var benchRoutes = false
    /// `DATABASE_URL` (or `DATABASE_URL_FILE`); required by `serve` and `migrate`.
    var databaseURL: String? = nil
    var databasePoolSize = 10
    var databaseAcquireTimeout: Duration = .seconds(5)
    var migrationsDirectory = "Migrations"
    /// `PIER_TRUSTED_PROXIES`: peers whose `X-Forwarded-For` names the client (per-client limits).
    var trustedProxies = TrustedProxies.loopback
    /// `PIER_DEMO_DIR`: the bundled recordings `serve --demo` replays.
    var demoDirectory = "Demo"
    /// `pier serve --demo`: the features may seed what the recordings cannot give (the lakes' level history).
    var servingDemo = false
    var fetch = FetchSettings()
    /// The environment the settings were read from (with command-line overrides); the features read their own
    /// sections from it.
    var environment: [String: String] = [:]
    /// Every variable this type read, for the unknown-variable warning (the features add theirs).
    var readVariables: Set<String> = []
    /// Where upstream requests really go: recordings on loopback in `--demo` and `--replay`
    /// (``UpstreamReplay``); `nil`: the upstreams themselves.
    var upstreamRoute: (@Sendable (String) -> String)? = nil

    /// The background fetcher's settings, shared by every feature (each reads its own upstream's).
    struct FetchSettings: Sendable {
        /// `PIER_FETCH`: `false` serves what PostgreSQL holds and never scrapes in the background.
        var enabled = true
        var retryInitial: Duration = .seconds(300)
        var retryMaximum: Duration = .seconds(3600)
        var jitter: Duration = .seconds(60)
        var runTimeout: Duration = .seconds(120)
        var tick: Duration = .seconds(15)
        var upstreamTimeout: Duration = .seconds(20)
        var upstreamMaxBytes = 32 << 20
        var cacheMaxAge = 300
        /// `PIER_SAVE_SUSPECT_DIR`: failed and suspect runs keep their upstream answers here (the newest
        /// `saveSuspectKeep`).
        var saveSuspectDirectory: String? = nil
        var saveSuspectKeep = 20
        /// How often a standby replica tries to become the fetching leader (and the leader checks its lock).
        var leaderCheck: Duration = .seconds(2)
    }

    /// Reads the environment variables docs/operations.md documents (the process's own; see ``Features``).
    static func fromEnvironment(_ environment: [String: String] = Configuration.processEnvironment()) throws -> Configuration {
        var configuration = Configuration()
        configuration.environment = environment
        let reader = SettingsReader(environment: environment)
        configuration.server.host = reader.string("HOST") ?? configuration.server.host
        configuration.server.port = try reader.int("PORT", default: configuration.server.port, in: 0...65535)
        configuration.server.eventLoopCount = try reader.int("PIER_EVENT_LOOPS", default: configuration.server.eventLoopCount, in: 1...256)
        configuration.server.maxConnections = try reader.int("PIER_MAX_CONNECTIONS", default: configuration.server.maxConnections, in: 1...1_000_000)
        configuration.server.limits.maxRequestLineBytes = try reader.int("PIER_MAX_REQUEST_LINE_BYTES", default: configuration.server.limits.maxRequestLineBytes, in: 64...1 << 20)
        configuration.server.limits.maxHeaderBytes = try reader.int("PIER_MAX_HEADER_BYTES", default: configuration.server.limits.maxHeaderBytes, in: 256...1 << 22)
        configuration.server.limits.maxHeaderCount = try reader.int("PIER_MAX_HEADER_COUNT", default: configuration.server.limits.maxHeaderCount, in: 1...10_000)
        configuration.server.limits.maxBodyBytes = try reader.int("PIER_MAX_BODY_BYTES", default: configuration.server.limits.maxBodyBytes, in: 0...1 << 30)
        configuration.server.headerReadTimeout = try reader.seconds("PIER_HEADER_TIMEOUT_S", default: configuration.server.headerReadTimeout)
        configuration.server.bodyReadTimeout = try reader.seconds("PIER_BODY_TIMEOUT_S", default: configuration.server.bodyReadTimeout)
        configuration.server.idleTimeout = try reader.seconds("PIER_IDLE_TIMEOUT_S", default: configuration.server.idleTimeout)
        configuration.server.writeTimeout = try reader.seconds("PIER_WRITE_TIMEOUT_S", default: configuration.server.writeTimeout)
        configuration.server.shutdownGracePeriod = try reader.seconds("PIER_SHUTDOWN_GRACE_S", default: configuration.server.shutdownGracePeriod)
        configuration.server.webSockets.maxSockets = try reader.int("PIER_WEBSOCKET_MAX_SOCKETS", default: configuration.server.webSockets.maxSockets, in: 0...1_000_000)
        configuration.server.webSockets.maxSocketsPerClient = try reader.int(
            "PIER_WEBSOCKET_SOCKETS_PER_CLIENT", default: configuration.server.webSockets.maxSocketsPerClient, in: 1...1_000_000)
        configuration.server.webSockets.maxSocketsPerNetwork = try reader.int(
            "PIER_WEBSOCKET_SOCKETS_PER_NETWORK", default: configuration.server.webSockets.maxSocketsPerNetwork, in: 1...1_000_000)
        configuration.server.webSockets.messageTimeout = try reader.seconds(
            "PIER_WEBSOCKET_MESSAGE_TIMEOUT_S", default: configuration.server.webSockets.messageTimeout)
        configuration.server.webSockets.maxMessageBytes = try reader.int(
            "PIER_WEBSOCKET_MAX_MESSAGE_BYTES", default: configuration.server.webSockets.maxMessageBytes, in: 125...1 << 24)
        configuration.server.webSockets.maxQueuedBytes = try reader.int(
            "PIER_WEBSOCKET_MAX_QUEUED_BYTES", default: configuration.server.webSockets.maxQueuedBytes, in: 4096...1 << 28)
        configuration.server.webSockets.idleTimeout = try reader.seconds("PIER_WEBSOCKET_IDLE_S", default: configuration.server.webSockets.idleTimeout)
        if let level = reader.string("LOG_LEVEL") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw SettingsProblem.invalid(variable: "LOG_LEVEL", value: level, expected: "debug, info, warning or error")
            }
            configuration.logLevel = parsed
        }
        configuration.benchRoutes = try reader.flag("PIER_BENCH_ROUTES", default: false)
        configuration.databaseURL = try reader.secret("DATABASE_URL")
        configuration.databasePoolSize = try reader.int("PIER_DB_POOL_SIZE", default: configuration.databasePoolSize, in: 1...1000)
        configuration.databaseAcquireTimeout = try reader.seconds("PIER_DB_ACQUIRE_TIMEOUT_S", default: configuration.databaseAcquireTimeout)
        configuration.migrationsDirectory = reader.string("PIER_MIGRATIONS_DIR") ?? configuration.migrationsDirectory
        configuration.server.yieldAfterBatch = try reader.flag("PIER_YIELD_AFTER_BATCH", default: configuration.server.yieldAfterBatch)
        if let text = reader.string("PIER_TRUSTED_PROXIES") {
            guard let ranges = AddressRange.list(text) else {
                throw SettingsProblem.invalid(variable: "PIER_TRUSTED_PROXIES", value: text, expected: "comma-separated addresses or CIDR blocks (10.0.0.0/8, ::1)")
            }
            configuration.trustedProxies = ranges
        }
        configuration.demoDirectory = reader.string("PIER_DEMO_DIR") ?? configuration.demoDirectory
        configuration.fetch = try fetchSettings(reader)
        configuration.readVariables = reader.names
        return configuration
    }

    private static func fetchSettings(_ reader: SettingsReader) throws -> FetchSettings {
        var fetch = FetchSettings()
        fetch.enabled = try reader.flag("PIER_FETCH", default: fetch.enabled)
        fetch.retryInitial = try reader.seconds("PIER_FETCH_RETRY_S", default: fetch.retryInitial)
        fetch.retryMaximum = try reader.seconds("PIER_FETCH_RETRY_MAX_S", default: fetch.retryMaximum)
        fetch.jitter = try reader.seconds("PIER_FETCH_JITTER_S", default: fetch.jitter, allowZero: true)
        fetch.runTimeout = try reader.seconds("PIER_FETCH_TIMEOUT_S", default: fetch.runTimeout)
        fetch.tick = try reader.seconds("PIER_FETCH_TICK_S", default: fetch.tick)
        fetch.upstreamTimeout = try reader.seconds("PIER_UPSTREAM_TIMEOUT_S", default: fetch.upstreamTimeout)
        fetch.upstreamMaxBytes = try reader.int("PIER_UPSTREAM_MAX_BYTES", default: fetch.upstreamMaxBytes, in: 1024...1 << 30)
        fetch.cacheMaxAge = try reader.int("PIER_CACHE_MAX_AGE_S", default: fetch.cacheMaxAge, in: 0...86_400)
        if let folder = reader.string("PIER_SAVE_SUSPECT_DIR"), !folder.isEmpty { fetch.saveSuspectDirectory = folder }
        fetch.saveSuspectKeep = try reader.int("PIER_SAVE_SUSPECT_KEEP", default: fetch.saveSuspectKeep, in: 1...10_000)
        fetch.leaderCheck = try reader.seconds("PIER_LEADER_CHECK_S", default: fetch.leaderCheck)
        return fetch
    }

    /// The `PIER_*` variables of the environment that no setting read (`readElsewhere`: the features' names).
    func unknownVariables(readElsewhere: Set<String>) -> [String] {
        environment.keys.filter { name in
            name.hasPrefix("PIER_") && !readVariables.contains(name) && !readElsewhere.contains(name)
        }.sorted()
    }

    /// The process environment with command-line overrides applied; problems become usage errors.
    static func load(overrides: [String: String] = [:]) throws -> Configuration {
        var environment = processEnvironment()
        environment.merge(overrides) { $1 }
        do {
            return try fromEnvironment(environment)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// JSON lines on standard output at the configured level; once per process.
    static func bootstrapLogging(_ configuration: Configuration) {
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
    }

    /// Warns of every `PIER_*` variable no setting read (a typo keeps its default silently otherwise).
    static func warnAboutUnknownVariables(_ names: [String]) {
        let logger = Logger(label: "pier.configuration")
        for name in names {
            logger.warning("unknown setting ignored (a typo? every setting is listed in docs/operations.md)", metadata: ["variable": "\(name)"])
        }
    }

    static func processEnvironment() -> [String: String] { ProcessInfo.processInfo.environment }
}
