import Foundation
import HTTPTesting
import XCTest

/// `pier serve` as operators run it: the real binary, configured by environment variables.
final class PierServeTests: XCTestCase {
    func testHealthAnswersAndSIGTERMStopsCleanlyWithJSONLogs() throws {
        let pier = try PierProcess()
        XCTAssertTrue(pier.waitUntilServing(), "pier answered /health")

        let client = try RawClient(port: pier.port)
        try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual(response.header("Access-Control-Allow-Origin"), "*")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        XCTAssertEqual(json["status"] as? String, "ok")
        XCTAssertEqual(json["version"] as? String, "0.1.0")
        XCTAssertNotNil(json["uptime_s"] as? Int)

        try client.send("HEAD /health HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try client.readResponse(head: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), String(response.body.count))

        try client.send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
        let metrics = try client.readResponse()
        XCTAssertTrue(metrics.bodyText.contains("http_requests_total{route=\"/health\",status=\"200\"}"), metrics.bodyText)
        XCTAssertTrue(metrics.bodyText.contains("http_open_connections 1"), metrics.bodyText)

        XCTAssertEqual(pier.stop(signal: SIGTERM), 0)
        let lines = pier.standardOutput().split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            XCTAssertNotNil(object?["msg"], "every log line is a JSON object: \(line)")
            XCTAssertNotNil(object?["level"])
            XCTAssertNotNil(object?["ts"])
        }
        XCTAssertTrue(lines.contains { $0.contains("\"msg\":\"shutting down\"") })
    }

    func testSIGINTAlsoStopsGracefully() throws {
        let pier = try PierProcess()
        XCTAssertTrue(pier.waitUntilServing())
        XCTAssertEqual(pier.stop(signal: SIGINT), 0)
    }

    func testInvalidConfigurationIsRefusedWithAClearMessage() throws {
        let pier = try PierProcess(environment: ["PIER_MAX_CONNECTIONS": "lots"])
        pier.process.waitUntilExit()
        XCTAssertNotEqual(pier.process.terminationStatus, 0)
    }

    func testHelpDocumentsOptionsAndTheirEnvironmentVariables() throws {
        let pier = try PierProcess(arguments: ["serve", "--help"])
        pier.process.waitUntilExit()
        let help = pier.standardOutput()
        for variable in ["PORT", "HOST", "PIER_EVENT_LOOPS", "PIER_MAX_CONNECTIONS", "LOG_LEVEL"] {
            XCTAssertTrue(help.contains(variable), "--help mentions \(variable):\n\(help)")
        }
    }
}
