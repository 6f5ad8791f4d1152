import Basics
import Feature
import Foundation
import HTTPServer
import Scheduling
import Synchronization

/// `GET /health`: whether the service can serve, for operators and uptime checks.
///
/// Answered on the event loop from remembered state (the database's monitor pings in the background), and
/// encoded at most once a second or when that state changes.
public final class HealthRoute: Sendable {
    public static let path = "/health"
    /// Liveness: `200` while the process accepts and answers requests, whatever PostgreSQL or the upstreams do,
    /// so that a database outage never gets replicas restarted (or dropped by the proxy) that still serve
    /// cached data. Container health checks and the proxy ask this; `/health` is readiness.
    public static let livePath = "/health/live"
    private static let live = HTTPResponse.json((try? OrderedJSONEncoder.encode(["status": "ok"])) ?? [], headers: ["Cache-Control": "no-store"])

    private let version: String
    private let readiness: [Readiness]
    private let sources: SourceStatusBoard?
    private let fetcher: (@Sendable () -> String)?
    private let details: [String: @Sendable () -> MergedObject]
    private let members: [String: @Sendable () -> any Encodable & Sendable]
    private let mode: String
    private let startedAt: Int
    /// The answer made last, its head encoded with it (a request between two makings copies one reference), and what it
    /// was made from (``readiness`` as a mask of the conditions not ready).
    private let cache = Mutex<(second: Int, notReady: UInt64, sources: Int, fetcher: String?, response: HTTPResponse)>((-1, 0, -1, nil, HTTPResponse()))

    /// - Parameters:
    ///   - readiness: the conditions the service cannot serve without (the features offer them); at most 64.
    ///   - sources: the fetcher's board; `nil` lists no sources.
    ///   - fetcher: this process's fetching role (`leader`, `standby`, `off`), reported as `fetcher`.
    ///   - details: more members for a source's object, by source name; read at most once a second.
    ///   - members: more top-level members, a value by name (a feature's state that is no source's); read at most once
    ///     a second.
    public init(
        version: String, readiness: [Readiness] = [], sources: SourceStatusBoard? = nil, fetcher: (@Sendable () -> String)? = nil,
        details: [String: @Sendable () -> MergedObject] = [:], mode: String = "live",
        members: [String: @Sendable () -> any Encodable & Sendable] = [:]
    ) {
        self.mode = mode
        self.version = version
        self.readiness = Array(readiness.prefix(64))
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
        report(notReady: notReady(), role: fetcher?())
    }

    /// The report with the conditions and the role `response()` read once: its body and its status never disagree.
    private func report(notReady: UInt64, role: String?) -> HealthReport {
        HealthReport(
            version: version, uptimeSeconds: Self.seconds() - startedAt,
            conditions: readiness.enumerated().map { index, condition in
                let ready = notReady & (1 << UInt64(index)) == 0
                return .init(name: condition.name, state: ready ? condition.states.ready : condition.states.notReady, ready: ready)
            },
            sources: sources?.statuses() ?? [], fetcher: role, details: details.mapValues { $0() }, mode: mode,
            members: members.mapValues { $0() })
    }

    /// The conditions not ready now, as a mask (bit `i`: `readiness[i]`).
    private func notReady() -> UInt64 {
        var notReady: UInt64 = 0
        for (index, condition) in readiness.enumerated() where !condition.isReady() { notReady |= 1 << UInt64(index) }
        return notReady
    }

    func response() -> HTTPResponse {
        let now = Self.seconds()
        let notReady = notReady()
        let sourcesVersion = sources?.version ?? 0
        let role = fetcher?()
        return cache.withLock { cache -> HTTPResponse in
            if cache.second != now || cache.notReady != notReady || cache.sources != sourcesVersion || cache.fetcher != role {
                let response = HTTPResponse.json(
                    report(notReady: notReady, role: role).body, status: notReady == 0 ? .ok : .serviceUnavailable,
                    headers: ["Cache-Control": "no-store"])
                cache = (now, notReady, sourcesVersion, role, response.preparedForSending())
            }
            return cache.response
        }
    }

    private static func seconds() -> Int { Int(MonotonicClock.now() / 1_000_000_000) }
}
