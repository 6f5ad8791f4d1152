import DatabaseTesting
import Foundation
import HTTPTesting
import XCTest

/// The project's Caddyfile, run by a real Caddy on loopback in front of a real `pier` and PostgreSQL.
final class DeploymentTests: EndToEndTestCase {
    private var caddy: Process?
    /// Caddy's output goes to a file: a pipe's write end can stay open in this process, and reading it to
    /// the end would then never return.
    private var caddyLog = FileManager.default.temporaryDirectory.appendingPathComponent("pier-caddy-\(UUID().uuidString).log")

    override func tearDown() {
        if let caddy, caddy.isRunning {
            caddy.terminate()
            caddy.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: caddyLog)
        super.tearDown()
    }

    private static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Starts `caddy run` with the repository's Caddyfile: plain HTTP on a free port, proxying to `pierPort`.
    private func startCaddy(proxyingTo pierPort: Int, environment extra: [String: String] = [:]) throws -> Int {
        let port = try PierProcess.freePort()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pier-caddy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/caddy")
        process.arguments = ["run", "--config", Self.repository.appendingPathComponent("Caddyfile").path, "--adapter", "caddyfile"]
        var environment = ProcessInfo.processInfo.environment
        environment["SITE_ADDRESS"] = ":\(port)"
        environment["PIER_UPSTREAM_HOST"] = "localhost"
        environment["PIER_UPSTREAM_PORT"] = String(pierPort)
        environment["CADDY_ADMIN"] = "off"
        environment["ACME_EMAIL"] = "ops@example.org"
        environment["HOME"] = home.path
        environment["XDG_DATA_HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.path
        environment.merge(extra) { $1 }
        process.environment = environment
        _ = FileManager.default.createFile(atPath: caddyLog.path, contents: nil)
        let output = try FileHandle(forWritingTo: caddyLog)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        caddy = process
        return port
    }

    private func through(_ port: Int, _ target: String, method: String = "GET", headers: [(String, String)] = []) throws -> RawResponse {
        try RawClient.request(port: port, target, method: method, headers: headers)
    }

    func testRequestsThroughCaddy() throws {
        let pier = try startPier()
        let port = try startCaddy(proxyingTo: pier.port)
        let deadline = Date().addingTimeInterval(30)
        var ships: RawResponse?
        while Date() < deadline {
            if let answer = try? through(port, "/api/ships"), answer.status == 200 {
                ships = answer
                break
            }
            usleep(100_000)
        }
        let first = try XCTUnwrap(ships, "pier's data never came through Caddy")
        XCTAssertEqual(first.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual(first.header("Access-Control-Allow-Origin"), "*")
        let etag = try XCTUnwrap(first.header("ETag"))
        XCTAssertTrue(first.header("Via")?.contains("Caddy") ?? true)

        let health = try through(port, "/health")
        XCTAssertEqual(health.status, 200)
        XCTAssertTrue(health.bodyText.contains("\"database\":\"ok\""))
        XCTAssertEqual(try through(port, "/api/ships", headers: [("If-None-Match", etag)]).status, 304)
        let compressed = try through(port, "/api/ships", headers: [("Accept-Encoding", "gzip")])
        XCTAssertEqual(compressed.header("Content-Encoding"), "gzip")
        XCTAssertLessThan(compressed.body.count, first.body.count)
        let denied = try through(port, "/api/ships/refresh", method: "POST", headers: [("Authorization", "Bearer wrong")])
        XCTAssertEqual(denied.status, 401)
        XCTAssertEqual(denied.header("WWW-Authenticate"), "Bearer")
        XCTAssertEqual(try through(port, "/v1/weather?lat=1&lon=2").status, 422)
        XCTAssertEqual(try through(port, "/nowhere").status, 404)
        XCTAssertEqual(first.header("Strict-Transport-Security"), "max-age=63072000")
        XCTAssertEqual(try through(port, "/health/live").status, 200)

        // /metrics is the operator's, scraped on the private network: the public site answers 404 however the
        // path is written, while pier itself still serves it.
        for path in ["/metrics", "/metrics?x=1", "/%6Detrics", "/metrics/", "//metrics", "/./metrics"] {
            let refused = try through(port, path)
            XCTAssertEqual(refused.status, 404, path)
            XCTAssertFalse(refused.bodyText.contains("http_requests_total"), path)
        }
        XCTAssertEqual(try RawClient.request(port: pier.port, "/metrics").status, 200)

        caddy?.terminate()
        caddy?.waitUntilExit()
        let log = String(decoding: (try? Data(contentsOf: caddyLog)) ?? Data(), as: UTF8.self)
        let accessLines = log.split(separator: "\n").filter { $0.contains("\"logger\":\"http.log.access") }
        XCTAssertFalse(accessLines.isEmpty, "access log lines: \(log.suffix(2000))")
        for line in accessLines {
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)), "access logs are JSON: \(line)")
        }
        XCTAssertEqual(pier.stop(), 0)
    }

    /// Grafana (the monitoring profile) is reached through Caddy under its own name only when the operator names it:
    /// unset, the block answers 404 even to a request naming its placeholder host; set, it proxies (here to pier,
    /// standing in for Grafana).
    func testGrafanaOnlyUnderTheNameTheOperatorSets() throws {
        let pier = try startPier()
        // Unset: the placeholder site (plain HTTP on port 80, as in production where Caddy holds it anyway).
        let port = try startCaddy(proxyingTo: pier.port, environment: ["GRAFANA_UPSTREAM": "127.0.0.1:\(pier.port)"])
        XCTAssertTrue(eventually(within: 30) { (try? self.through(port, "/health/live"))?.status == 200 }, "Caddy never answered")
        let refused = try through(80, "/health/live", headers: [("Host", "grafana.invalid")])
        XCTAssertEqual(refused.status, 404, "no Grafana without GRAFANA_SITE_ADDRESS")
        caddy?.terminate()
        caddy?.waitUntilExit()

        let grafanaPort = try PierProcess.freePort()
        let named = try startCaddy(
            proxyingTo: pier.port,
            environment: ["GRAFANA_SITE_ADDRESS": "http://grafana.localhost:\(grafanaPort)", "GRAFANA_UPSTREAM": "127.0.0.1:\(pier.port)"])
        XCTAssertTrue(eventually(within: 30) { (try? self.through(named, "/health/live"))?.status == 200 }, "Caddy never answered")
        let proxied = try through(grafanaPort, "/health/live", headers: [("Host", "grafana.localhost:\(grafanaPort)")])
        XCTAssertEqual(proxied.status, 200, "Grafana's site proxies once named")
        XCTAssertEqual(proxied.header("Strict-Transport-Security"), "max-age=63072000")
        XCTAssertFalse(proxied.body.isEmpty)
        // Another name on that port matches no site: Caddy's empty answer, nothing of what is behind it.
        XCTAssertTrue(try through(grafanaPort, "/health/live", headers: [("Host", "elsewhere.localhost")]).body.isEmpty, "only under its name")
        XCTAssertEqual(pier.stop(), 0)
    }

    /// A database outage with Caddy in front: readiness (`/health`) says 503, but liveness keeps the replica in
    /// Caddy's pool, so the routes answered from memory still answer 200 through the proxy; the database
    /// comes back and so does readiness.
    func testADatabaseOutageKeepsCachedRoutesAnsweringThroughCaddy() throws {
        let pier = try startPier(["PIER_HEALTH_PING_INTERVAL_S": "0.2", "PIER_DB_ACQUIRE_TIMEOUT_S": "0.5"])
        let port = try startCaddy(proxyingTo: pier.port)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, (try? through(port, "/api/ships"))?.status != 200 || (try? through(port, "/api/water-temp"))?.status != 200 {
            usleep(100_000)
        }
        let ships = try through(port, "/api/ships")
        XCTAssertEqual(ships.status, 200)

        try TestCluster.stop()
        var stopped = true
        // Whatever fails below, the other tests get their database back.
        defer { if stopped { XCTAssertNoThrow(try TestCluster.start()) } }
        let noDatabase = Date().addingTimeInterval(10)
        while Date() < noDatabase, try through(port, "/health").status != 503 { usleep(100_000) }
        XCTAssertEqual(try through(port, "/health").status, 503, "readiness reports the outage")
        // Longer than Caddy's health interval (5 s): a proxy checking /health would have dropped the only
        // replica by now and answered 503 itself. And pier's own 503s (an uptime monitor polling /health) are
        // answers, not failures: counted, they would eject the replica too.
        for _ in 0..<6 { XCTAssertEqual(try through(port, "/health").status, 503) }
        usleep(6_500_000)
        for _ in 0..<5 {
            let during = try through(port, "/api/ships")
            XCTAssertEqual(during.status, 200, during.bodyText)
            XCTAssertEqual(during.body, ships.body)
            XCTAssertEqual(try through(port, "/api/water-temp").status, 200)
            XCTAssertEqual(try through(port, "/health/live").status, 200)
        }

        try TestCluster.start()
        stopped = false
        let back = Date().addingTimeInterval(15)
        while Date() < back, try through(port, "/health").status != 200 { usleep(100_000) }
        XCTAssertEqual(try through(port, "/health").status, 200, "readiness returns with the database")
        XCTAssertEqual(pier.stop(), 0)
    }

    /// Live check-ins through the shipped Caddyfile: Caddy passes the upgrade, and a check-in reaches the channel.
    func testRealtimeThroughCaddy() throws {
        let pier = try startPier(NextWaveRealtimeTests.settings)
        let port = try startCaddy(proxyingTo: pier.port)
        let key = NextWaveEndToEndTests.anonKey()
        var socket: PhoenixTestSocket?
        let deadline = Date().addingTimeInterval(30)
        while socket == nil && Date() < deadline {
            socket = try? PhoenixTestSocket(port: port, query: "apikey=\(key)&vsn=2.0.0")
            if socket == nil { usleep(100_000) }
        }
        let channel = try XCTUnwrap(socket, "the upgrade never came through Caddy")
        try channel.send(#"["1","1","realtime:wave_checkins_live","phx_join",{"config":{"postgres_changes":[{"event":"*","schema":"public","table":"wave_checkins"}]}}]"#)
        XCTAssertEqual((try channel.read()[4] as? [String: Any])?["status"] as? String, "ok")
        XCTAssertEqual(try channel.read()[3] as? String, "system")
        try channel.send(#"[null,"2","phoenix","heartbeat",{}]"#)
        XCTAssertEqual(try channel.read()[1] as? String, "2")
        let signup = try through(port, "/auth/v1/signup", method: "POST", headers: [("apikey", key), ("Content-Type", "application/json")])
        let session = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(signup.body)) as? [String: Any], signup.bodyText)
        let token = try XCTUnwrap(session["access_token"] as? String)
        let id = try XCTUnwrap((session["user"] as? [String: Any])?["id"] as? String)
        let departure = NextWaveRealtimeTests.utc(3600)
        let written = try RawClient(port: port).request(
            "POST", "/rest/v1/wave_checkins", headers: [("apikey", key), ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"[{"wave_id":"caddy_\#(departure)","user_id":"\#(id)","departure_at":"\#(departure)"}]"#.utf8))
        XCTAssertEqual(written.status, 201, written.bodyText)
        let event = try channel.read()
        XCTAssertEqual(event[3] as? String, "postgres_changes")
        XCTAssertEqual(((event[4] as? [String: Any])?["data"] as? [String: Any])?["type"] as? String, "INSERT")
    }
}
