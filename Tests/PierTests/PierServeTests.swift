import DatabaseTesting
import Foundation
import HTTPTesting
import Postgres
import XCTest

/// `pier serve` and `pier migrate` as operators run them: the real binary, configured by environment
/// variables, against a real PostgreSQL database of its own.
final class PierServeTests: XCTestCase {
    var database: TestDatabase!

    override func setUpWithError() throws {
        database = try TestDatabase.create()
    }

    override func tearDown() {
        database?.drop()
    }

    func testHealthAnswersAndSIGTERMStopsCleanlyWithJSONLogs() throws {
        let pier = try PierProcess(database: database)
        XCTAssertTrue(pier.waitUntilServing(), "pier answered /health")

        let client = try RawClient(port: pier.port)
        try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual(response.header("Access-Control-Allow-Origin"), "*")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        XCTAssertEqual(json["status"] as? String, "ok")
        XCTAssertEqual(json["database"] as? String, "ok")
        XCTAssertEqual(json["version"] as? String, "0.1.0")
        XCTAssertNotNil(json["uptime_s"] as? Int)
        XCTAssertEqual(json["app_attest"] as? [String: String], ["mode": "off"], "App Attest off by default: the mode alone")

        // HEAD has GET's length. /health changes with the second (uptime_s, age_s), so a pair of requests that
        // straddles a second is asked again.
        var lengths: (get: Int, head: String?) = (0, nil)
        for _ in 0..<3 {
            try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\nHEAD /health HTTP/1.1\r\nHost: t\r\n\r\n")
            let get = try client.readResponse()
            let head = try client.readResponse(head: true)
            XCTAssertEqual(head.status, 200)
            lengths = (get.body.count, head.header("Content-Length"))
            if lengths.head == String(lengths.get) { break }
        }
        XCTAssertEqual(lengths.head, String(lengths.get))

        // /health, /metrics and /openapi.json are public routes like any other: each answers its preflight.
        for path in ["/health", "/health/live", "/metrics", "/openapi.json"] {
            try client.send("OPTIONS \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
            let preflight = try client.readResponse()
            XCTAssertEqual(preflight.status, 204, path)
            XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), "*", path)
            XCTAssertEqual(preflight.header("Access-Control-Allow-Methods"), "GET, HEAD, OPTIONS", path)
        }

        // The start-up poll's connection is closed by the client; the server may count it for a moment longer.
        let deadline = Date().addingTimeInterval(5)
        var metrics: RawResponse
        repeat {
            try client.send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
            metrics = try client.readResponse()
            if metrics.bodyText.contains("http_open_connections 1\n") { break }
            usleep(20_000)
        } while Date() < deadline
        XCTAssertTrue(metrics.bodyText.contains("http_requests_total{route=\"/health\",status=\"200\"}"), metrics.bodyText)
        XCTAssertTrue(metrics.bodyText.contains("http_open_connections 1\n"), metrics.bodyText)

        XCTAssertEqual(pier.stop(signal: SIGTERM), 0)
        let lines = pier.standardOutput().split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            XCTAssertNotNil(object?["msg"], "every log line is a JSON object: \(line)")
            XCTAssertNotNil(object?["level"])
            XCTAssertNotNil(object?["ts"])
        }
        XCTAssertTrue(lines.contains { $0.contains("\"msg\":\"applied migration\"") }, "serve applies migrations at start-up")
        XCTAssertTrue(lines.contains { $0.contains("\"msg\":\"shutting down\"") })
    }

    /// A rolling restart as an orchestrator does it: SIGTERM while clients pipeline on keep-alive connections.
    /// Every request sent before the signal gets a whole response, and no connection is reset; `/health/live`
    /// (the image's HEALTHCHECK) answers throughout.
    func testSIGTERMUnderPipelinedKeepAliveLoadAnswersEveryRequestSentBeforeIt() throws {
        let pier = try PierProcess(database: database, environment: ["PIER_FETCH": "off"])
        XCTAssertTrue(pier.waitUntilServing())
        let live = try RawClient.request(port: pier.port, "/health/live")
        XCTAssertEqual(live.status, 200)
        XCTAssertEqual(live.bodyText, #"{"status":"ok"}"#)
        XCTAssertEqual(live.header("Cache-Control"), "no-store")

        let perConnection = 200
        let clients = try (0..<8).map { _ in try RawClient(port: pier.port) }
        let batch = String(repeating: "GET /health/live HTTP/1.1\r\nHost: t\r\n\r\nGET /api/ships HTTP/1.1\r\nHost: t\r\n\r\n", count: perConnection / 2)
        for client in clients { try client.send(batch) }
        kill(pier.process.processIdentifier, SIGTERM)
        for (number, client) in clients.enumerated() {
            for index in 0..<perConnection {
                let response = try client.readResponse()
                // /api/ships has no data (fetching is off): 503 is its whole, correct answer.
                XCTAssertEqual(response.status, index % 2 == 0 ? 200 : 503, "connection \(number), request \(index)")
            }
            XCTAssertTrue(client.isClosedCleanlyByServer(), "connection \(number) ends with a FIN, not a reset")
        }
        pier.process.waitUntilExit()
        XCTAssertEqual(pier.process.terminationStatus, 0)
    }

    func testSIGINTAlsoStopsGracefully() throws {
        let pier = try PierProcess(database: database)
        XCTAssertTrue(pier.waitUntilServing())
        XCTAssertEqual(pier.stop(signal: SIGINT), 0)
    }

    func testMigrateAppliesOnceAndExits() throws {
        let first = try PierProcess(arguments: ["migrate"], database: database)
        first.process.waitUntilExit()
        XCTAssertEqual(first.process.terminationStatus, 0)
        let tables = try database.connection().query(
            "SELECT count(*) AS n FROM information_schema.tables WHERE table_name IN ('fetch_runs', 'ship_deployments', 'lake_readings', 'weather_stations', 'weather_observations', 'upstream_answers')")
        XCTAssertEqual(try tables[0].decode(Int.self, "n"), 6)
        let second = try PierProcess(arguments: ["migrate"], database: database)
        second.process.waitUntilExit()
        XCTAssertEqual(second.process.terminationStatus, 0)
        XCTAssertFalse(second.standardOutput().contains("applied migration"), "nothing left to apply")
    }

    func testTamperedMigrationStopsStartUp() throws {
        let connection = try database.connection()
        try connection.execute("CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
        try connection.execute("INSERT INTO schema_migrations (version, name, checksum) VALUES (1, 'initial', 'not-the-real-checksum')")
        let pier = try PierProcess(database: database)
        pier.process.waitUntilExit()
        XCTAssertNotEqual(pier.process.terminationStatus, 0)
        XCTAssertTrue(pier.standardOutput().contains("was changed after it was applied"))
    }

    func testServeWithoutDatabaseURLIsRefused() throws {
        let pier = try PierProcess(database: nil, environment: ["DATABASE_URL": ""])
        pier.process.waitUntilExit()
        XCTAssertNotEqual(pier.process.terminationStatus, 0)
    }

    func testInvalidConfigurationIsRefusedWithAClearMessage() throws {
        let pier = try PierProcess(database: database, environment: ["PIER_MAX_CONNECTIONS": "lots"])
        pier.process.waitUntilExit()
        XCTAssertNotEqual(pier.process.terminationStatus, 0)
        // A feature's setting too, before any migration runs.
        let feature = try ChildProcess.run(PierProcess.binary.path, ["serve"], environment: [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory, "PIER_ZSG_URL": "ftp://zsg",
        ])
        XCTAssertNotEqual(feature.status, 0)
        XCTAssertTrue(feature.output.contains("PIER_ZSG_URL=ftp://zsg is invalid: expected an http or https URL"), feature.output)
        XCTAssertFalse(feature.output.contains("applied migration"), "refused before touching the database")
    }

    func testHelpDocumentsOptionsAndTheirEnvironmentVariables() throws {
        let pier = try PierProcess(arguments: ["serve", "--help"], database: nil)
        pier.process.waitUntilExit()
        let help = pier.standardOutput()
        for variable in ["PORT", "HOST", "PIER_EVENT_LOOPS", "PIER_MAX_CONNECTIONS", "LOG_LEVEL"] {
            XCTAssertTrue(help.contains(variable), "--help mentions \(variable):\n\(help)")
        }
    }
}
