import DatabaseTesting
import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// Official warnings pushed by the real binary: devices registered over HTTP, FMI's feed read by the fetcher (the
/// local double), the pushes delivered to the APNs stand-in over HTTP/2 and TLS; the routes' refusals; the feature off
/// without a key.
final class PushEndToEndTests: EndToEndTestCase {
    /// pier with an APNs key pointed at a fresh stand-in.
    private func startPierWithPush(_ extra: [String: String] = [:]) throws -> (PierProcess, APNsStandIn) {
        let (standIn, settings) = try apnsStandIn()
        return (try startPier(settings.merging(extra) { $1 }), standIn)
    }

    private func send(_ pier: PierProcess, _ method: String, _ target: String, secret: String? = nil, body: String? = nil) throws -> RawResponse {
        var headers: [(String, String)] = []
        if let secret { headers.append(("Authorization", "Bearer \(secret)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        return try RawClient(port: pier.port).request(method, target, headers: headers, body: Array((body ?? "").utf8))
    }

    private func registration(token: Int, places: String, language: String = "fi", severity: String = "moderate") -> String {
        #"{"token":"\#(String(format: "%064x", token))","environment":"production","language":"\#(language)","places":\#(places),"min_severity":"\#(severity)","all_clear":true}"#
    }

    private func waitForPushes(_ standIn: APNsStandIn, count: Int, within seconds: Double = 30) throws -> [APNsStandIn.Push] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let pushes = try standIn.received()
            if pushes.count >= count { return pushes }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return try standIn.received()
    }

    func testARegisteredDeviceGetsTheWarningsOverItsPlacesInItsLanguage() throws {
        let (pier, standIn) = try startPierWithPush()
        let created = try send(pier, "POST", "/v1/devices", body: registration(token: 1, places: #"[{"lat":60.2031,"lon":24.9612}]"#, language: "sv"))
        XCTAssertEqual(created.status, 201, created.bodyText)
        XCTAssertEqual(created.header("Cache-Control"), "no-store")
        let made = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: String])
        let id = try XCTUnwrap(made["id"]), secret = try XCTUnwrap(made["secret"])
        XCTAssertEqual(created.header("Location"), "/v1/devices/\(id)")
        _ = try send(pier, "POST", "/v1/devices", body: registration(token: 2, places: #"[{"lat":65.0121,"lon":25.4651}]"#))

        // Kumpula: the orange wind warning and the traffic warning, in Swedish; Oulu: nothing.
        let pushes = try waitForPushes(standIn, count: 2)
        XCTAssertEqual(pushes.count, 2)
        XCTAssertEqual(Set(pushes.map(\.token)), [String(format: "%064x", 1)])
        XCTAssertTrue(pushes.allSatisfy { $0.payload.contains("\"thread-id\":\"warnings\"") && $0.topic == "fi.example.weather" && $0.push_type == "alert" })
        XCTAssertTrue(pushes.contains { $0.payload.contains("Orange vindvarning") || $0.payload.contains("Orange") }, "\(pushes.map(\.payload))")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try standIn.received().count, 2, "nothing twice")

        let shown = try send(pier, "GET", "/v1/devices/\(id)", secret: secret)
        XCTAssertEqual(shown.status, 200, shown.bodyText)
        let device = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.body)) as? [String: Any])
        XCTAssertEqual(device["language"] as? String, "sv")
        XCTAssertEqual((device["places"] as? [[String: Double]])?.first, ["lat": 60.2, "lon": 24.96], "stored rounded to about a kilometre")
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains("\"push\":{\"state\":\"ok\""), health)
        XCTAssertFalse(health.contains(String(format: "%064x", 1)) || health.contains("60.2"), "no token, no place in /health")
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains("pier_push_total{result=\"delivered\",reason=\"none\"} 2"), metrics)

        XCTAssertEqual(try send(pier, "DELETE", "/v1/devices/\(id)", secret: secret).status, 204)
        XCTAssertEqual(try send(pier, "GET", "/v1/devices/\(id)", secret: secret).status, 404)
        XCTAssertEqual(try send(pier, "DELETE", "/v1/devices/\(id)", secret: secret).status, 404)
        XCTAssertEqual(pier.stop(), 0)
        XCTAssertFalse(pier.standardOutput().contains(String(format: "%064x", 1)), "no token in the logs")
    }

    func testBadInputIsRefusedWithItsReasonAndNothingIsStored() throws {
        let (pier, _) = try startPierWithPush(["PIER_FETCH": "off"])
        let cases: [(String, String)] = [
            ("not json", "the body must be a JSON object"),
            (#"{"environment":"production","places":[{"lat":60,"lon":25}]}"#, "token:"),
            (#"{"token":"zz","environment":"production","places":[{"lat":60,"lon":25}]}"#, "token:"),
            (registration(token: 3, places: "[]"), "places:"),
            (registration(token: 3, places: #"[{"lat":91,"lon":25}]"#), "places[0]:"),
            (registration(token: 3, places: #"[{"place":"Kumpula"}]"#), "places[0]:"),
            (registration(token: 3, places: "[" + Array(repeating: #"{"lat":60,"lon":25}"#, count: 11).joined(separator: ",") + "]"), "places:"),
            (registration(token: 3, places: #"[{"lat":60,"lon":25}]"#, language: "de"), "language:"),
            (registration(token: 3, places: #"[{"lat":60,"lon":25}]"#, severity: "minor"), "min_severity:"),
            (#"{"token":"\#(String(format: "%064x", 3))","environment":"staging","places":[{"lat":60,"lon":25}]}"#, "environment:"),
        ]
        for (body, reason) in cases {
            let response = try send(pier, "POST", "/v1/devices", body: body)
            XCTAssertEqual(response.status, 400, body)
            XCTAssertTrue(response.bodyText.contains(reason), "\(body) → \(response.bodyText)")
        }
        let rows = try database.connection().query("SELECT count(*)::int AS n FROM push_devices")[0].decode(Int.self, "n")
        XCTAssertEqual(rows, 0, "nothing stored")
        XCTAssertEqual(try send(pier, "GET", "/v1/devices/00000000-0000-0000-0000-000000000000").status, 401)
        XCTAssertEqual(try send(pier, "GET", "/v1/devices/not-a-uuid", secret: "x").status, 404)
        let created = try send(pier, "POST", "/v1/devices", body: registration(token: 4, places: #"[{"lat":60,"lon":25}]"#))
        let id = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: String])?["id"])
        XCTAssertEqual(try send(pier, "GET", "/v1/devices/\(id)", secret: "not-its-secret").status, 401)
    }

    func testWithoutAKeyPushesAreOffAndSaySo() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        let response = try send(pier, "POST", "/v1/devices", body: registration(token: 5, places: #"[{"lat":60,"lon":25}]"#))
        XCTAssertEqual(response.status, 503)
        XCTAssertNotNil(response.header("Retry-After"))
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""push":{"state":"disabled","missing":["PIER_APNS_KEY_FILE","PIER_APNS_KEY_ID","PIER_APNS_TEAM_ID","PIER_APNS_TOPIC"]}"#), health)
    }
}
