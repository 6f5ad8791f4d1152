import Basics
import DatabaseTesting
import Foundation
import HTTPServer
import HTTPTesting
@testable import Operations
import Postgres
import Scheduling
import XCTest

/// `/health` over a real socket, backed by a real PostgreSQL (from DATABASE_URL) or an unreachable one.
final class HealthRouteTests: XCTestCase {
    func serveHealth(pool: PostgresPool) async throws -> (HTTPServer, DatabaseMonitor) {
        let monitor = DatabaseMonitor(pool: pool, timeout: .seconds(2))
        await monitor.check()
        var router = Router()
        HealthRoute(version: "9.9.9", readiness: [monitor.readiness]).register(in: &router)
        let server = try HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoopCount: 1), router: router)
        try server.start()
        return (server, monitor)
    }

    func health(port: Int) throws -> (RawResponse, [String: Any]) {
        let client = try RawClient(port: port)
        try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (response, json)
    }

    func testReachableDatabaseIs200() async throws {
        let url = try TestDatabase.serverURL()
        let pool = PostgresPool(configuration: .init(url: url))
        let (server, _) = try await serveHealth(pool: pool)
        defer { server.stop() }
        let (response, json) = try health(port: server.port)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(json["status"] as? String, "ok")
        XCTAssertEqual(json["database"] as? String, "ok")
        XCTAssertEqual(json["version"] as? String, "9.9.9")
        XCTAssertNotNil(json["uptime_s"] as? Int)
        XCTAssertNotNil(json["sources"] as? [String: Any])
        XCTAssertEqual(response.header("Cache-Control"), "no-store")
    }

    struct Count: Encodable, Sendable { let n: Int }
    struct Mode: Encodable, Sendable { let mode: String }
    struct Capture: Encodable, Sendable {
        let capture: String?
        enum CodingKeys: String, CodingKey { case capture = "last_capture" }
    }

    /// A feature's state that is no source's is a top-level member, in name order, read when the body is made; a
    /// source's own members follow its status, in order.
    func testMembersAreTopLevelJSONInNameOrder() throws {
        let source = SourceStatus(source: "ships", state: .stale, lastSuccess: nil, ageSeconds: nil, lastError: "a \"quote\"", lastOutcome: .failed)
        let report = HealthReport(
            version: "9.9.9", uptimeSeconds: 1, conditions: [.init(name: "database", state: "ok", ready: true)], sources: [source],
            details: ["ships": MergedObject([Capture(capture: nil), Count(n: 2)])], members: ["zeta": Count(n: 1), "app_attest": Mode(mode: "off")])
        let text = String(decoding: report.body, as: UTF8.self)
        XCTAssertEqual(text, #"{"status":"ok","version":"9.9.9","uptime_s":1,"database":"ok","mode":"live","sources":{"ships":{"status":"stale","#
            + #""last_success":null,"age_s":null,"last_error":"a \"quote\"","last_outcome":"failed","last_capture":null,"n":2}},"#
            + #""app_attest":{"mode":"off"},"zeta":{"n":1}}"#)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any])
        XCTAssertEqual(json["app_attest"] as? [String: String], ["mode": "off"])
        XCTAssertEqual(json["status"] as? String, "ok")
    }

    func testUnreachableDatabaseIs503() async throws {
        let pool = PostgresPool(configuration: .init(url: "postgresql:///pier?host=/nonexistent-socket-dir&user=pier"))
        let (server, _) = try await serveHealth(pool: pool)
        defer { server.stop() }
        let (response, json) = try health(port: server.port)
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(json["status"] as? String, "unavailable")
        XCTAssertEqual(json["database"] as? String, "unreachable")
    }

    /// The server a ping reached: a primary (the test cluster is one), since the first answer, with the standbys its
    /// role may see (the tests' role is the cluster's owner: none); unknown before any answer and kept through a
    /// failed ping; encoded with the contract's names.
    func testTheServerReachedIsThePrimaryWithItsStandbys() async throws {
        let pool = PostgresPool(configuration: .init(url: try TestDatabase.serverURL()))
        let monitor = DatabaseMonitor(pool: pool, timeout: .seconds(2))
        XCTAssertNil(monitor.server)
        await monitor.check()
        let server = try XCTUnwrap(monitor.server)
        XCTAssertEqual(server.role, "primary")
        XCTAssertEqual(server.synchronousStandbys, 0)
        XCTAssertLessThan(server.sinceSeconds, 5)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(JSONEncoder().encode(server))) as? [String: Any])
        XCTAssertEqual(Set(json.keys), ["role", "since_s", "synchronous_standbys"])
        pool.close()
        await monitor.check()
        XCTAssertEqual(monitor.server?.role, "primary", "a failed ping keeps what the last answer said")
    }

    func testOneMissedPingIsNotAnOutageButTwoAre() async throws {
        let pool = PostgresPool(configuration: .init(url: try TestDatabase.serverURL()))
        let monitor = DatabaseMonitor(pool: pool, timeout: .seconds(2))
        await monitor.check()
        XCTAssertEqual(monitor.state, .ok)
        pool.close()
        await monitor.check()
        XCTAssertEqual(monitor.state, .ok, "one failed ping after successes is tolerated")
        await monitor.check()
        XCTAssertEqual(monitor.state, .unreachable)
    }
}
