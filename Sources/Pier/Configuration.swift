import Foundation
import HTTPServer
import ArgumentParser
import Logging

/// All of Pier's settings, read once from the environment (and command-line overrides). Nothing else in
/// the program reads environment variables. Every variable is documented in docs/operations.md.
struct Configuration: Sendable {
    var server = ServerConfiguration()
    var logLevel: Logger.Level = .info
    var benchRoutes = false
    /// `DATABASE_URL`; required by `serve` and `migrate`.
    var databaseURL: String? = nil
    var databasePoolSize = 10
    var databaseAcquireTimeout: Duration = .seconds(5)
    var migrationsDirectory = "Migrations"
    var healthPingInterval: Duration = .seconds(2)
    /// `PIER_TRUSTED_PROXIES`: peers whose `X-Forwarded-For` names the client (per-client limits).
    var trustedProxies = ClientAddress.defaultTrustedProxies
    /// `PIER_DEMO_DIR`: the bundled recordings `serve --demo` replays.
    var demoDirectory = "Demo"
    var fetch = FetchSettings()
    /// `PIER_*` variables in the environment that no setting reads (typos, or settings of another version):
    /// reported as warnings at start-up.
    var unknownVariables: [String] = []

    /// Upstreams, schedules and limits of the background fetcher.
    struct FetchSettings: Sendable {
        /// `PIER_FETCH`: `false` serves what PostgreSQL holds and never scrapes in the background.
        var enabled = true
        var refreshToken: String? = nil
        var zsgURL = "https://einsatzderschiffe.zsg.ch/schiffeinsatz"
        var meteoNewsURL = "https://meteonews.ch/de/Cms/D121/seen-in-der-schweiz"
        /// Ships: daily at this Zurich wall-clock time.
        var shipsAt = (hour: 3, minute: 0)
        var lakesInterval: Duration = .seconds(6 * 3600)
        var retryInitial: Duration = .seconds(300)
        var retryMaximum: Duration = .seconds(3600)
        var jitter: Duration = .seconds(60)
        var runTimeout: Duration = .seconds(120)
        var tick: Duration = .seconds(15)
        var upstreamTimeout: Duration = .seconds(20)
        var upstreamMaxBytes = 32 << 20
        var zsgPause: Duration = .milliseconds(500)
        var cacheMaxAge = 300
        var fmiURL = "https://opendata.fmi.fi/wfs"
        var fmiForecastQuery = "fmi::forecast::edited::weather::scandinavia::point::timevaluepair"
        var weatherInterval: Duration = .seconds(600)
        var forecastTTL: Duration = .seconds(3600)
        /// FMI forecast requests: sustained rate, burst and one client's share (token buckets).
        var fmiRequestsPerMinute = 60.0
        var fmiBurst = 20
        var fmiClientShare = 0.25
        /// How far a neighbouring cell's forecast may stand in for the point's own.
        var forecastNeighbourKilometres = 10.0
        /// Bytes of forecasts and `/v1/weather` answers kept in memory.
        var weatherCacheBytes = 64 << 20
        /// `PIER_SAVE_SUSPECT_DIR`: failed and suspect runs keep their upstream answers here (the newest
        /// `saveSuspectKeep`).
        var saveSuspectDirectory: String? = nil
        var saveSuspectKeep = 20
        /// `PIER_TRANSPORT_URL`: transport.opendata.ch's API base (`/stationboard` is appended).
        var transportURL = "https://transport.opendata.ch/v1"
        /// Stationboards: fresh for this long when they are today's, and for other dates.
        var stationboardTTLToday: Duration = .seconds(60)
        var stationboardTTL: Duration = .seconds(1800)
        /// Requests to transport.opendata.ch: sustained rate, burst and one client's share (token buckets).
        var transportRequestsPerMinute = 30.0
        var transportBurst = 10
        var transportClientShare = 0.25
        /// Bytes of stationboard answers kept in memory.
        var stationboardCacheBytes = 64 << 20
        /// How often a standby replica tries to become the fetching leader (and the leader checks its lock).
        var leaderCheck: Duration = .seconds(2)
    }

    /// Secrets: never logged, never shown; each may also come from a file named by `<NAME>_FILE` (Docker's
    /// secrets convention), so it need not sit in the environment.
    static let secretVariables = ["DATABASE_URL", "PIER_REFRESH_TOKEN"]

    /// `PIER_*` variables that are not pier's settings but belong to the programs around it: the scripts and
    /// tests (which run pier with their environment) and the Caddyfile.
    static let neighbourVariables: Set<String> = [
        "PIER_PG_CLUSTER_DIR", "PIER_PG_BINDIR", "PIER_PG_PORT", "PIER_PG_SOCKET_DIR", "PIER_PG_FSYNC", "PIER_PYTHON",
        "PIER_SCHEMATHESIS", "PIER_SCHEMATHESIS_EXAMPLES", "PIER_SCHEMATHESIS_SEED", "PIER_CLIENT_CHECK", "PIER_FIXTURES_DIR",
        "PIER_FUZZ", "PIER_FUZZ_SECONDS", "PIER_RUNTIME_CACHE", "PIER_UPSTREAM_HOST", "PIER_UPSTREAM_PORT",
    ]

    /// A configuration problem, reported before anything starts. Never carries a secret's value.
    enum Problem: Error, CustomStringConvertible {
        case invalid(variable: String, value: String, expected: String)
        case unreadableSecretFile(variable: String, path: String, reason: String)
        case secretTwice(variable: String)

        var description: String {
            switch self {
            case .invalid(let variable, let value, let expected): "\(variable)=\(value) is invalid: expected \(expected)"
            case .unreadableSecretFile(let variable, let path, let reason): "\(variable)_FILE=\(path) cannot be read: \(reason)"
            case .secretTwice(let variable): "\(variable) and \(variable)_FILE are both set: set one of them"
            }
        }
    }

    /// Reads the environment variables docs/operations.md documents.
    static func fromEnvironment(_ environment: [String: String] = Configuration.processEnvironment()) throws -> Configuration {
        var configuration = Configuration()
        let reader = Reader(environment: try withSecretFiles(environment))
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
        if let level = reader.string("LOG_LEVEL") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw Problem.invalid(variable: "LOG_LEVEL", value: level, expected: "debug, info, warning or error")
            }
            configuration.logLevel = parsed
        }
        configuration.benchRoutes = try reader.flag("PIER_BENCH_ROUTES", default: false)
        if let url = reader.string("DATABASE_URL"), !url.isEmpty { configuration.databaseURL = url }
        configuration.databasePoolSize = try reader.int("PIER_DB_POOL_SIZE", default: configuration.databasePoolSize, in: 1...1000)
        configuration.databaseAcquireTimeout = try reader.seconds("PIER_DB_ACQUIRE_TIMEOUT_S", default: configuration.databaseAcquireTimeout)
        configuration.migrationsDirectory = reader.string("PIER_MIGRATIONS_DIR") ?? configuration.migrationsDirectory
        configuration.healthPingInterval = try reader.seconds("PIER_HEALTH_PING_INTERVAL_S", default: configuration.healthPingInterval)
        configuration.server.yieldAfterBatch = try reader.flag("PIER_YIELD_AFTER_BATCH", default: configuration.server.yieldAfterBatch)
        if let text = reader.string("PIER_TRUSTED_PROXIES") {
            guard let ranges = AddressRange.list(text) else {
                throw Problem.invalid(variable: "PIER_TRUSTED_PROXIES", value: text, expected: "comma-separated addresses or CIDR blocks (10.0.0.0/8, ::1)")
            }
            configuration.trustedProxies = ranges
        }
        configuration.demoDirectory = reader.string("PIER_DEMO_DIR") ?? configuration.demoDirectory
        configuration.fetch = try fetchSettings(reader)
        configuration.unknownVariables = environment.keys.filter { name in
            name.hasPrefix("PIER_") && !reader.names.contains(name) && !neighbourVariables.contains(name)
                && !(name.hasSuffix("_FILE") && secretVariables.contains(String(name.dropLast(5))))
        }.sorted()
        return configuration
    }

    /// The environment with each secret's `<NAME>_FILE` read into `<NAME>` (one trailing newline dropped, as
    /// editors and `echo` leave one).
    private static func withSecretFiles(_ environment: [String: String]) throws -> [String: String] {
        var resolved = environment
        for name in secretVariables {
            guard let path = environment[name + "_FILE"], !path.isEmpty else { continue }
            if let value = environment[name], !value.isEmpty { throw Problem.secretTwice(variable: name) }
            do {
                var text = try String(contentsOfFile: path, encoding: .utf8)
                if text.hasSuffix("\n") { text.removeLast() }
                if text.hasSuffix("\r") { text.removeLast() }
                resolved[name] = text
            } catch {
                throw Problem.unreadableSecretFile(variable: name, path: path, reason: (error as NSError).localizedDescription)
            }
        }
        return resolved
    }

    private static func fetchSettings(_ reader: Reader) throws -> FetchSettings {
        var fetch = FetchSettings()
        fetch.enabled = try reader.flag("PIER_FETCH", default: fetch.enabled)
        if let token = reader.string("PIER_REFRESH_TOKEN"), !token.isEmpty { fetch.refreshToken = token }
        fetch.zsgURL = try reader.url("PIER_ZSG_URL", default: fetch.zsgURL)
        fetch.meteoNewsURL = try reader.url("PIER_METEONEWS_URL", default: fetch.meteoNewsURL)
        if let text = reader.string("PIER_SHIPS_FETCH_AT") {
            let parts = text.split(separator: ":").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let hour = parts[0], let minute = parts[1], (0..<24).contains(hour), (0..<60).contains(minute) else {
                throw Problem.invalid(variable: "PIER_SHIPS_FETCH_AT", value: text, expected: "HH:MM (Europe/Zurich)")
            }
            fetch.shipsAt = (hour, minute)
        }
        fetch.lakesInterval = try reader.seconds("PIER_LAKES_INTERVAL_S", default: fetch.lakesInterval)
        fetch.retryInitial = try reader.seconds("PIER_FETCH_RETRY_S", default: fetch.retryInitial)
        fetch.retryMaximum = try reader.seconds("PIER_FETCH_RETRY_MAX_S", default: fetch.retryMaximum)
        fetch.jitter = try reader.seconds("PIER_FETCH_JITTER_S", default: fetch.jitter, allowZero: true)
        fetch.runTimeout = try reader.seconds("PIER_FETCH_TIMEOUT_S", default: fetch.runTimeout)
        fetch.tick = try reader.seconds("PIER_FETCH_TICK_S", default: fetch.tick)
        fetch.upstreamTimeout = try reader.seconds("PIER_UPSTREAM_TIMEOUT_S", default: fetch.upstreamTimeout)
        fetch.upstreamMaxBytes = try reader.int("PIER_UPSTREAM_MAX_BYTES", default: fetch.upstreamMaxBytes, in: 1024...1 << 30)
        fetch.zsgPause = try reader.seconds("PIER_ZSG_PAUSE_S", default: fetch.zsgPause, allowZero: true)
        fetch.cacheMaxAge = try reader.int("PIER_CACHE_MAX_AGE_S", default: fetch.cacheMaxAge, in: 0...86_400)
        fetch.fmiURL = try reader.url("PIER_FMI_URL", default: fetch.fmiURL)
        if let query = reader.string("PIER_FMI_FORECAST_QUERY"), !query.isEmpty { fetch.fmiForecastQuery = query }
        fetch.weatherInterval = try reader.seconds("PIER_WEATHER_INTERVAL_S", default: fetch.weatherInterval)
        fetch.forecastTTL = try reader.seconds("PIER_FORECAST_TTL_S", default: fetch.forecastTTL)
        fetch.fmiRequestsPerMinute = try reader.number("PIER_FMI_REQUESTS_PER_MINUTE", default: fetch.fmiRequestsPerMinute, in: 0...1_000_000)
        fetch.fmiBurst = try reader.int("PIER_FMI_BURST", default: fetch.fmiBurst, in: 1...100_000)
        fetch.fmiClientShare = try reader.number("PIER_FMI_CLIENT_SHARE", default: fetch.fmiClientShare, in: 0.001...1)
        fetch.forecastNeighbourKilometres = try reader.number("PIER_FORECAST_NEIGHBOUR_KM", default: fetch.forecastNeighbourKilometres, in: 0...500)
        if let folder = reader.string("PIER_SAVE_SUSPECT_DIR"), !folder.isEmpty { fetch.saveSuspectDirectory = folder }
        fetch.saveSuspectKeep = try reader.int("PIER_SAVE_SUSPECT_KEEP", default: fetch.saveSuspectKeep, in: 1...10_000)
        fetch.weatherCacheBytes = try reader.int("PIER_WEATHER_CACHE_MB", default: fetch.weatherCacheBytes >> 20, in: 1...1 << 20) << 20
        fetch.leaderCheck = try reader.seconds("PIER_LEADER_CHECK_S", default: fetch.leaderCheck)
        fetch.transportURL = try reader.url("PIER_TRANSPORT_URL", default: fetch.transportURL)
        fetch.stationboardTTLToday = try reader.seconds("PIER_STATIONBOARD_TTL_TODAY_S", default: fetch.stationboardTTLToday)
        fetch.stationboardTTL = try reader.seconds("PIER_STATIONBOARD_TTL_S", default: fetch.stationboardTTL)
        fetch.transportRequestsPerMinute = try reader.number("PIER_TRANSPORT_REQUESTS_PER_MINUTE", default: fetch.transportRequestsPerMinute, in: 0...1_000_000)
        fetch.transportBurst = try reader.int("PIER_TRANSPORT_BURST", default: fetch.transportBurst, in: 1...100_000)
        fetch.transportClientShare = try reader.number("PIER_TRANSPORT_CLIENT_SHARE", default: fetch.transportClientShare, in: 0.001...1)
        fetch.stationboardCacheBytes = try reader.int("PIER_STATIONBOARD_CACHE_MB", default: fetch.stationboardCacheBytes >> 20, in: 1...1 << 20) << 20
        return fetch
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

    /// JSON lines on standard output at the configured level; once per process. Then warns of every `PIER_*`
    /// variable no setting reads (a typo keeps its default silently otherwise).
    static func bootstrapLogging(_ configuration: Configuration) {
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        let logger = Logger(label: "pier.configuration")
        for name in configuration.unknownVariables {
            logger.warning("unknown setting ignored (a typo? every setting is listed in docs/operations.md)", metadata: ["variable": "\(name)"])
        }
    }

    static func processEnvironment() -> [String: String] { ProcessInfo.processInfo.environment }

    /// Reads variables and remembers their names, so that what nothing read can be reported.
    private final class Reader {
        let environment: [String: String]
        private(set) var names: Set<String> = []

        init(environment: [String: String]) {
            self.environment = environment
        }

        func string(_ name: String) -> String? {
            names.insert(name)
            return environment[name]
        }

        func int(_ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
            guard let text = string(name) else { return value }
            guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(parsed) else {
                throw Problem.invalid(variable: name, value: text, expected: "a whole number in \(range.lowerBound)...\(range.upperBound)")
            }
            return parsed
        }

        func number(_ name: String, default value: Double, in range: ClosedRange<Double>) throws -> Double {
            guard let text = string(name) else { return value }
            guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed.isFinite, range.contains(parsed) else {
                throw Problem.invalid(variable: name, value: text, expected: "a number in \(range.lowerBound)...\(range.upperBound)")
            }
            return parsed
        }

        func seconds(_ name: String, default value: Duration, allowZero: Bool = false) throws -> Duration {
            guard let text = string(name) else { return value }
            guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed.isFinite,
                allowZero ? parsed >= 0 : parsed > 0, parsed <= 7 * 86_400
            else {
                throw Problem.invalid(variable: name, value: text, expected: allowZero ? "seconds, 0 or more" : "seconds, greater than 0")
            }
            return .milliseconds(Int64(parsed * 1000))
        }

        func url(_ name: String, default value: String) throws -> String {
            guard let text = string(name) else { return value }
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw Problem.invalid(variable: name, value: text, expected: "an http or https URL")
            }
            return text
        }

        func flag(_ name: String, default value: Bool) throws -> Bool {
            guard let text = string(name)?.lowercased() else { return value }
            switch text {
            case "on", "1", "true", "yes": return true
            case "off", "0", "false", "no": return false
            default: throw Problem.invalid(variable: name, value: text, expected: "on or off")
            }
        }
    }
}
