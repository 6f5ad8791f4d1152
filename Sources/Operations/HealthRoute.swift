import Basics
import Foundation
import HTTPServer
import Scheduling
import Synchronization

/// `GET /health`: whether the service can serve, for operators and uptime checks.
///
/// Answered on the event loop from remembered state (the database monitor pings in the background), and
/// encoded at most once a second or when that state changes.
public final class HealthRoute: Sendable {
    public static let path = "/health"
    /// Liveness: `200` while the process accepts and answers requests, whatever PostgreSQL or the upstreams do,
    /// so that a database outage never gets replicas restarted (or dropped by the proxy) that still serve
    /// cached data. Container health checks and the proxy ask this; `/health` is readiness.
    public static let livePath = "/health/live"
    private static let live = HTTPResponse.json((try? OrderedJSONEncoder.encode(["status": "ok"])) ?? [], headers: ["Cache-Control": "no-store"])

    private let version: String
    private let database: DatabaseMonitor
    private let sources: SourceStatusBoard?
    private let fetcher: (@Sendable () -> String)?
    private let details: [String: @Sendable () -> MergedObject]
    private let members: [String: @Sendable () -> any Encodable & Sendable]
    private let mode: String
    private let startedAt: Int
    private let cache = Mutex<(second: Int, database: DatabaseMonitor.State, sources: Int, fetcher: String?, body: [UInt8])>((-1, .ok, -1, nil, []))

    /// - Parameters:
    ///   - sources: the fetcher's board; `nil` lists no sources.
    ///   - fetcher: this process's fetching role (`leader`, `standby`, `off`), reported as `fetcher`.
    ///   - details: more members for a source's object, by source name; read at most once a second.
    ///   - members: more top-level members, a value by name (a feature's state that is no source's); read at most once
    ///     a second.
    public init(
        version: String, database: DatabaseMonitor, sources: SourceStatusBoard? = nil, fetcher: (@Sendable () -> String)? = nil,
        details: [String: @Sendable () -> MergedObject] = [:], mode: String = "live",
        members: [String: @Sendable () -> any Encodable & Sendable] = [:]
    ) {
        self.mode = mode
        self.version = version
        self.database = database
        self.sources = sources
        self.fetcher = fetcher
        self.details = details
        self.members = members
        startedAt = Self.seconds()
    }

    public func register(in router: inout Router) {
        router.on(.get, Self.path) { [self] _ in response() }
        router.on(.get, Self.livePath) { _ in Self.live }
    }

    public func report() -> HealthReport {
        HealthReport(
            version: version, uptimeSeconds: Self.seconds() - startedAt, database: database.state,
            sources: sources?.statuses() ?? [], fetcher: fetcher?(), details: details.mapValues { $0() }, mode: mode,
            members: members.mapValues { $0() })
    }

    func response() -> HTTPResponse {
        let now = Self.seconds()
        let state = database.state
        let sourcesVersion = sources?.version ?? 0
        let role = fetcher?()
        let body = cache.withLock { cache -> [UInt8] in
            if cache.second != now || cache.database != state || cache.sources != sourcesVersion || cache.fetcher != role {
                cache = (now, state, sourcesVersion, role, report().body)
            }
            return cache.body
        }
        return .json(
            body, status: state == .ok ? .ok : .serviceUnavailable,
            headers: ["Cache-Control": "no-store"])
    }

    private static func seconds() -> Int { Int(MonotonicClock.now() / 1_000_000_000) }
}
