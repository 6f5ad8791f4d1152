import Feature
import Foundation
import HTTPServer
import Identity
import ArgumentParser
import Logging
import Settings

/// The process's own settings — the server, the database, logging, the fetcher every feature shares — read once
/// from the environment (and command-line overrides). Each feature reads its own section from the same
/// environment (``Features``); nothing else reads environment variables. Every variable is declared where it is read
/// (its default and meaning): `pier settings` prints them, docs/settings.md is that output.
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
    /// What the code says of each of them (`pier settings`).
    var settingDeclarations: [SettingDeclaration] = []
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

    /// Reads the environment variables docs/settings.md lists (the process's own; see ``Features``).
    static func fromEnvironment(_ environment: [String: String] = Configuration.processEnvironment()) throws -> Configuration {
        var configuration = Configuration()
        configuration.environment = environment
        let reader = SettingsReader(environment: environment)
        configuration.server.host = reader.string("HOST", default: configuration.server.host, meaning: "address to bind (`::`, `127.0.0.1`, a host name)")
        configuration.server.port = try reader.int("PORT", default: configuration.server.port, in: 0...65535, meaning: "port `pier serve` listens on (`0` picks a free one)")
        configuration.server.eventLoopCount = try reader.int("PIER_EVENT_LOOPS", default: configuration.server.eventLoopCount, in: 1...256, shown: "one per core", meaning: "event loop threads")
        configuration.server.maxConnections = try reader.int("PIER_MAX_CONNECTIONS", default: configuration.server.maxConnections, in: 1...1_000_000, meaning: "open connections; beyond it a new one gets `503` + `Retry-After: 1` and is closed")
        configuration.server.limits.maxRequestLineBytes = try reader.int("PIER_MAX_REQUEST_LINE_BYTES", default: configuration.server.limits.maxRequestLineBytes, in: 64...1 << 20, meaning: "longest request line (`414` beyond)")
        configuration.server.limits.maxHeaderBytes = try reader.int("PIER_MAX_HEADER_BYTES", default: configuration.server.limits.maxHeaderBytes, in: 256...1 << 22, meaning: "largest header block (`431` beyond)")
        configuration.server.limits.maxHeaderCount = try reader.int("PIER_MAX_HEADER_COUNT", default: configuration.server.limits.maxHeaderCount, in: 1...10_000, meaning: "most header fields (`431` beyond)")
        configuration.server.limits.maxBodyBytes = try reader.int("PIER_MAX_BODY_BYTES", default: configuration.server.limits.maxBodyBytes, in: 0...1 << 30, meaning: "largest request body (`413` beyond, checked before the body is read)")
        configuration.server.headerReadTimeout = try reader.seconds("PIER_HEADER_TIMEOUT_S", default: configuration.server.headerReadTimeout, meaning: "from a request's first byte until its head is complete (`408` and close)")
        configuration.server.bodyReadTimeout = try reader.seconds("PIER_BODY_TIMEOUT_S", default: configuration.server.bodyReadTimeout, meaning: "from the end of the head until the body is complete (`408` and close)")
        configuration.server.idleTimeout = try reader.seconds("PIER_IDLE_TIMEOUT_S", default: configuration.server.idleTimeout, meaning: "idle keep-alive connections are closed after this")
        configuration.server.writeTimeout = try reader.seconds("PIER_WRITE_TIMEOUT_S", default: configuration.server.writeTimeout, meaning: "a client that reads nothing of our response for this long is dropped")
        configuration.server.shutdownGracePeriod = try reader.seconds("PIER_SHUTDOWN_GRACE_S", default: configuration.server.shutdownGracePeriod, meaning: "on SIGTERM/SIGINT, in-flight requests get this long before everything is closed")
        configuration.server.webSockets.maxSockets = try reader.int("PIER_WEBSOCKET_MAX_SOCKETS", default: configuration.server.webSockets.maxSockets, in: 0...1_000_000, meaning: "open WebSockets in all; past it an upgrade is `503`. Each also counts against `PIER_MAX_CONNECTIONS`, and sockets never take more than four fifths of it whatever this says (a fifth stays for HTTP: sign-ups, REST, health checks) — for 20,000 sockets set `PIER_MAX_CONNECTIONS=25000` and this to `20000`")
        configuration.server.webSockets.maxSocketsPerClient = try reader.int(
            "PIER_WEBSOCKET_SOCKETS_PER_CLIENT", default: configuration.server.webSockets.maxSocketsPerClient, in: 1...1_000_000, meaning: "open WebSockets one client (the trusted-proxy rule's address) may hold; past it `429`. A carrier's NAT puts many riders behind one address: raise it if `websocket` upgrades are refused with `429`")
        configuration.server.webSockets.maxSocketsPerNetwork = try reader.int(
            "PIER_WEBSOCKET_SOCKETS_PER_NETWORK", default: configuration.server.webSockets.maxSocketsPerNetwork, in: 1...1_000_000, meaning: "open WebSockets the clients of one network (IPv4 /24, IPv6 /56) may hold together; past it `429`")
        configuration.server.webSockets.messageTimeout = try reader.seconds(
            "PIER_WEBSOCKET_MESSAGE_TIMEOUT_S", default: configuration.server.webSockets.messageTimeout, meaning: "a message begun (its first fragment) must end within this, else the socket is closed (`1008`)")
        configuration.server.webSockets.maxMessageBytes = try reader.int(
            "PIER_WEBSOCKET_MAX_MESSAGE_BYTES", default: configuration.server.webSockets.maxMessageBytes, in: 125...1 << 24, meaning: "a message longer than this closes the socket (`1009`)")
        configuration.server.webSockets.maxQueuedBytes = try reader.int(
            "PIER_WEBSOCKET_MAX_QUEUED_BYTES", default: configuration.server.webSockets.maxQueuedBytes, in: 4096...1 << 28, meaning: "output queued for a socket that reads too slowly — messages, pongs and close frames alike; past it the socket is closed (`1008`), never buffered further")
        configuration.server.webSockets.idleTimeout = try reader.seconds("PIER_WEBSOCKET_IDLE_S", default: configuration.server.webSockets.idleTimeout, meaning: "a socket that sends no whole message and no ping for this long is closed (a pong or a fragment does not count)")
        if let level = reader.string("LOG_LEVEL", shown: configuration.logLevel.rawValue, meaning: "`debug` (adds one line per request), `info`, `warning`, `error`") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw SettingsProblem.invalid(variable: "LOG_LEVEL", value: level, expected: "debug, info, warning or error")
            }
            configuration.logLevel = parsed
        }
        configuration.benchRoutes = try reader.flag("PIER_BENCH_ROUTES", default: false, meaning: "`on` adds `GET /bench/payload` (a fixed 12 KB JSON body) for `scripts/bench`")
        configuration.databaseURL = try reader.secret("DATABASE_URL", meaning: "`postgres://user:pass@host:port/db?sslmode=…` or the unix-socket form `postgresql:///db?host=/socket/dir&user=…`; required by `pier serve` and `pier migrate` (`scripts/run` starts a local cluster and sets it when unset); or `DATABASE_URL_FILE` (a file holding it). libpq's own `PGPASSWORD` supplies a password the URL leaves out")
        configuration.databasePoolSize = try reader.int("PIER_DB_POOL_SIZE", default: configuration.databasePoolSize, in: 1...1000, meaning: "most PostgreSQL connections the process opens")
        configuration.databaseAcquireTimeout = try reader.seconds("PIER_DB_ACQUIRE_TIMEOUT_S", default: configuration.databaseAcquireTimeout, meaning: "how long a request waits for a free connection before failing")
        configuration.migrationsDirectory = reader.string("PIER_MIGRATIONS_DIR", default: configuration.migrationsDirectory, meaning: "where the `NNNN_description.sql` files are (relative to the working directory)")
        configuration.server.yieldAfterBatch = try reader.flag("PIER_YIELD_AFTER_BATCH", default: configuration.server.yieldAfterBatch, meaning: "each loop calls `sched_yield` after a batch of events, so a loop sharing a core with Caddy or PostgreSQL does not hold it for a whole time slice (cuts p99 several-fold under contention); `off` only pays on dedicated cores")
        if let text = reader.string("PIER_TRUSTED_PROXIES", shown: configuration.trustedProxies.map(\.description).joined(separator: ","), meaning: "peers (addresses or CIDR blocks, comma-separated; empty = none) whose `X-Forwarded-For` names the client: the right-most entry that is not itself a trusted proxy (proxies append; what a client writes on the left is never believed). List every proxy hop in front of Pier (a CDN's ranges too), or the client is taken to be the innermost untrusted hop. `docker-compose.yml` sets the compose network's private ranges (only Caddy reaches the replicas); see [Fair shares](operations/keys-and-budgets.md#fair-shares)") {
            guard let ranges = AddressRange.list(text) else {
                throw SettingsProblem.invalid(variable: "PIER_TRUSTED_PROXIES", value: text, expected: "comma-separated addresses or CIDR blocks (10.0.0.0/8, ::1)")
            }
            configuration.trustedProxies = ranges
        }
        configuration.demoDirectory = reader.string("PIER_DEMO_DIR", default: configuration.demoDirectory, meaning: "the recordings `pier serve --demo` replays (the image sets `/app/Demo`)")
        configuration.fetch = try fetchSettings(reader)
        configuration.readVariables = reader.names
        configuration.settingDeclarations = reader.declarations
        return configuration
    }

    private static func fetchSettings(_ reader: SettingsReader) throws -> FetchSettings {
        var fetch = FetchSettings()
        fetch.enabled = try reader.flag("PIER_FETCH", default: fetch.enabled, meaning: "`off`: no background fetching; the routes serve what PostgreSQL holds (`pier fetch` still works)")
        fetch.retryInitial = try reader.seconds("PIER_FETCH_RETRY_S", default: fetch.retryInitial, meaning: "first retry after a failed or suspect run; doubled per further failure…")
        fetch.retryMaximum = try reader.seconds("PIER_FETCH_RETRY_MAX_S", default: fetch.retryMaximum, meaning: "the longest wait before a retry: the first (PIER_FETCH_RETRY_S) doubles per further failure up to this")
        fetch.jitter = try reader.seconds("PIER_FETCH_JITTER_S", default: fetch.jitter, allowZero: true, meaning: "up to this much random delay on every planned run and retry (`0` allowed)")
        fetch.runTimeout = try reader.seconds("PIER_FETCH_TIMEOUT_S", default: fetch.runTimeout, meaning: "a whole run (all seven ZSG days) is cancelled and recorded as failed after this")
        fetch.tick = try reader.seconds("PIER_FETCH_TICK_S", default: fetch.tick, meaning: "how often the fetcher re-reads the fetch runs' record (runs by other processes) and re-checks due times")
        fetch.upstreamTimeout = try reader.seconds("PIER_UPSTREAM_TIMEOUT_S", default: fetch.upstreamTimeout, meaning: "one upstream request, connect to last byte")
        fetch.upstreamMaxBytes = try reader.int("PIER_UPSTREAM_MAX_BYTES", default: fetch.upstreamMaxBytes, in: 1024...1 << 30, meaning: "largest upstream body (after gzip decoding); more is an error (an all-Finland FMI observations answer is ~6 MB)")
        fetch.cacheMaxAge = try reader.int("PIER_CACHE_MAX_AGE_S", default: fetch.cacheMaxAge, in: 0...86_400, meaning: "`Cache-Control: public, max-age=…` on ships, lakes and weather answers")
        if let folder = reader.string("PIER_SAVE_SUSPECT_DIR", meaning: "when set, failed and suspect fetch runs keep every upstream answer in `<dir>/<source>-<UTC time>/` (as `--save` writes them); `/health` names each source's newest as `last_capture`"), !folder.isEmpty { fetch.saveSuspectDirectory = folder }
        fetch.saveSuspectKeep = try reader.int("PIER_SAVE_SUSPECT_KEEP", default: fetch.saveSuspectKeep, in: 1...10_000, meaning: "how many such capture folders are kept (the oldest go first)")
        fetch.leaderCheck = try reader.seconds("PIER_LEADER_CHECK_S", default: fetch.leaderCheck, meaning: "how often a replica tries to become the fetching leader (and the leader checks its lock)")
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
            logger.warning("unknown setting ignored (a typo? every setting is listed by `pier settings` and in docs/settings.md)", metadata: ["variable": "\(name)"])
        }
    }

    static func processEnvironment() -> [String: String] { ProcessInfo.processInfo.environment }
}
