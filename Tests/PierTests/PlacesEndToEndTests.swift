import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// `/v1/places`, `/v1/geocode` and the Wikipedia routes through the real binary: places and geocoding not
/// configured without a key (Wikipedia needs none), the app's requests answered in the app's shapes from the
/// local Geoapify and Wikipedia, the key never shown anywhere.
final class PlacesEndToEndTests: EndToEndTestCase {
    func testWithoutAKeyPlacesAndGeocodeSayWhileWikipediaServes() throws {
        let pier = try startPier(["PIER_FETCH": "off", "LOG_LEVEL": "info", "PIER_WIKIPEDIA_CLIENT_SHARE": "1"])
        for path in ["/v1/places?lat=49.45&lon=11.07&categories=tourism.attraction", "/v1/geocode?text=N%C3%BCrnberg"] {
            try assertNotConfigured(
                pier, path: path, error: "places and geocoding are not configured on this server (no Geoapify key)", sources: ["places", "geocode"])
        }
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/places?lat=49.45&lon=11.07&categories=tourism").status, 400, "a bad request is still named")
        let health = try RawClient.request(port: pier.port, "/health")
        let sources = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])?["sources"] as? [String: Any])
        XCTAssertNotEqual((sources["wikipedia"] as? [String: Any])?["status"] as? String, "disabled")
        XCTAssertEqual(upstream.requests(.geoapify).count, 0)
        // Wikipedia: the app's %20 title, decoded by the app's model.
        let summary = try RawClient.request(port: pier.port, "/v1/wikipedia/de/summary/Sch%C3%B6ner%20Brunnen")
        XCTAssertEqual(summary.status, 200, summary.bodyText)
        XCTAssertEqual(try JSONDecoder().decode(AppWikipediaSummary.self, from: Data(summary.body)).title, "Schöner Brunnen")
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/wikipedia/de/summary/Gibt_es_nicht").status, 404)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/wikipedia/xx.evil/summary/Berlin").status, 400)
        let search = try RawClient.request(port: pier.port, "/v1/wikipedia/de/opensearch?action=opensearch&search=Sch%C3%B6ner%20Brunnen%20N%C3%BCrnberg&limit=5&namespace=0&format=json")
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(search.body)) as? [Any])?.count, 4)
        XCTAssertEqual(pier.stop(), 0)
        XCTAssertTrue(pier.standardOutput().contains("PIER_CONTACT is not set"), "a warning at start")
    }

    func testTheAppsRequestsAreAnsweredAndTheKeyIsNeverShown() throws {
        let key = "geoapify-key-\(UUID().uuidString)"
        let captures = FileManager.default.temporaryDirectory.appendingPathComponent("pier-places-captures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: captures) }
        let pier = try startPier([
            "PIER_FETCH": "off", "PIER_GEOAPIFY_KEY": key, "LOG_LEVEL": "debug", "PIER_SAVE_SUSPECT_DIR": captures.path,
            "PIER_CONTACT": "ops@example.org", "PIER_GEOAPIFY_CLIENT_SHARE": "1",
        ])
        let geocode = try RawClient.request(port: pier.port, "/v1/geocode?text=N%C3%BCrnberg&lang=de&apiKey=app-key")
        XCTAssertEqual(geocode.status, 200, geocode.bodyText)
        let city = try XCTUnwrap(try JSONDecoder().decode(AppPlaces.self, from: Data(geocode.body)).features.first?.geometry.coordinates)
        let path = "/v1/places?categories=tourism.attraction,entertainment.museum,leisure.park&filter=circle:\(city[0]),\(city[1]),5000&limit=50&lang=de"
        let places = try RawClient.request(port: pier.port, path)
        XCTAssertEqual(places.status, 200, places.bodyText)
        XCTAssertEqual(try JSONDecoder().decode(AppPlaces.self, from: Data(places.body)).features.count, 14)
        XCTAssertEqual(upstream.requests(.geoapify).map { $0.query["apiKey"] }, [key, key], "Pier's key, not the app's")
        let tag = try XCTUnwrap(places.header("etag"))
        XCTAssertEqual(try RawClient.request(port: pier.port, path, headers: [("If-None-Match", tag)]).status, 304)
        // 30 m north with the lat/lon form: the same answer, no call.
        let near = try RawClient.request(
            port: pier.port, "/v1/places?lat=\(city[1] + 0.00027)&lon=\(city[0])&radius=5000&categories=leisure.park,tourism.attraction,entertainment.museum")
        XCTAssertEqual(near.body, places.body)
        XCTAssertEqual(upstream.requests(.geoapify).count, 2)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/places?lat=49&lon=11&categories=tourism").status, 400)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/geocode?text=").status, 400)
        _ = try RawClient.request(port: pier.port, "/v1/wikipedia/de/summary/Kaiserburg_N%C3%BCrnberg")
        XCTAssertEqual(upstream.requests(.wikipedia).first?.headers["user-agent"], "Pier/0.1.0 (ops@example.org)")
        // Garbage from Geoapify is captured (without the key) and the request answered 503.
        upstream.set(.geoapify, .garbage)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/geocode?text=Berlin").status, 503)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        // Places and geocoding count their calls on the one Geoapify upstream.
        XCTAssertTrue(metrics.contains(#"pier_upstream_requests_total{upstream="geoapify"} "# + "\(upstream.requests(.geoapify).count)"), metrics)
        XCTAssertTrue(metrics.contains(#"pier_upstream_quota_left{upstream="geoapify"} 2495"#), metrics)
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""left_today":2495"#), health)
        XCTAssertEqual(pier.stop(), 0)
        try assertNeverShown(key, in: [health, metrics, pier.standardOutput()], captures: captures)
    }
}
