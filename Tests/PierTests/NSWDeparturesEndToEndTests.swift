import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// `/v1/nsw/departures` through the real binary: not configured without a key, the app's request answered in
/// the app's shape from the local TfNSW, the key sent only in `Authorization` and never shown anywhere.
final class NSWDeparturesEndToEndTests: EndToEndTestCase {
    func testWithoutAKeyTheRouteSaysSoAndHealthShowsDisabled() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        try assertNotConfigured(
            pier, path: "/v1/nsw/departures?stop=G203519&mode=bus", error: "Sydney departures are not configured on this server", sources: ["nsw"])
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/nsw/departures?mode=bus").status, 400, "a bad request is still named")
        XCTAssertEqual(upstream.requests(.tfnsw).count, 0)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testTheAppsRequestIsAnsweredAndTheKeyIsNeverShown() throws {
        let key = "nsw-key-\(UUID().uuidString)"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pier-nsw-\(UUID().uuidString)")
        try Data(key.utf8).write(to: file)
        let captures = FileManager.default.temporaryDirectory.appendingPathComponent("pier-nsw-captures-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: captures)
        }
        let pier = try startPier(["PIER_FETCH": "off", "PIER_NSW_API_KEY_FILE": file.path, "LOG_LEVEL": "debug", "PIER_SAVE_SUSPECT_DIR": captures.path, "PIER_NSW_CLIENT_SHARE": "1"])
        let path = "/v1/nsw/departures?stop=G203519&mode=bus"
        let response = try RawClient.request(port: pier.port, path)
        XCTAssertEqual(response.status, 200, response.bodyText)
        let answer = try JSONDecoder().decode(AppDepartures.self, from: Data(response.body))
        XCTAssertEqual(answer.stopEvents.count, 6)
        XCTAssertTrue(answer.stopEvents.allSatisfy { $0.transportation.colour.background == "00B5EF" })
        XCTAssertNotNil(response.header("age"))
        XCTAssertEqual(upstream.requests(.tfnsw).first?.headers["authorization"], "apikey \(key)")
        let tag = try XCTUnwrap(response.header("etag"))
        XCTAssertEqual(try RawClient.request(port: pier.port, path, headers: [("If-None-Match", tag)]).status, 304)
        // Light rail from the same upstream answer; an unknown stop is 404.
        let rail = try RawClient.request(port: pier.port, "/v1/nsw/departures?stop=G203519&mode=lightrail")
        XCTAssertEqual(try JSONDecoder().decode(AppDepartures.self, from: Data(rail.body)).stopEvents.count, 2)
        XCTAssertEqual(upstream.requests(.tfnsw).count, 1)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/nsw/departures?stop=X1").status, 404)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/nsw/departures?stop=G203519&mode=tram").status, 400)
        // Garbage from TfNSW is captured (without the key) and the request answered 503.
        upstream.set(.tfnsw, .garbage)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/nsw/departures?stop=203294").status, 503)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_upstream_requests_total{upstream="tfnsw"} 3"#), metrics)
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""nsw":{"status":"#), health)
        XCTAssertTrue(health.contains(#""left_today":49997"#), health)
        XCTAssertEqual(pier.stop(), 0)
        try assertNeverShown(key, in: [health, metrics, pier.standardOutput()], captures: captures)
    }
}
