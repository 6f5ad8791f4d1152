import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// `/v1/lake-weather` through the real binary: not configured without a key, the key never shown, the app's
/// request (with its `appid`, which Pier ignores) answered from the local OpenWeather.
final class LakeWeatherEndToEndTests: EndToEndTestCase {
    func testWithoutAKeyTheRouteSaysSoAndHealthShowsDisabled() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        try assertNotConfigured(
            pier, path: "/v1/lake-weather?lat=47.37&lon=8.54", error: "lake weather is not configured on this server", sources: ["lake-weather"])
        XCTAssertEqual(upstream.requests(.openweather).count, 0)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testTheAppsRequestIsAnsweredAndTheKeyIsNeverShown() throws {
        let key = "ow-key-\(UUID().uuidString)"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pier-ow-\(UUID().uuidString)")
        try Data(key.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let pier = try startPier(["PIER_FETCH": "off", "PIER_OPENWEATHER_KEY_FILE": file.path, "LOG_LEVEL": "debug"])
        // The app's request, with its own key in the URL (ignored, never logged).
        let path = "/v1/lake-weather?lat=46.5065&lon=6.6268&appid=the-apps-old-key&units=metric"
        let response = try RawClient.request(port: pier.port, path)
        XCTAssertEqual(response.status, 200, response.bodyText)
        let forecast = try JSONDecoder().decode(AppForecast.self, from: Data(response.body))
        XCTAssertEqual(forecast.list.count, 39, "the slot without wind.deg is dropped")
        XCTAssertEqual(upstream.requests(.openweather).first?.query["appid"], key)
        let tag = try XCTUnwrap(response.header("etag"))
        XCTAssertEqual(try RawClient.request(port: pier.port, path, headers: [("If-None-Match", tag)]).status, 304)
        XCTAssertEqual(upstream.requests(.openweather).count, 1)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/lake-weather?lat=46.5&lon=6.6&units=imperial").status, 400)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/lake-weather?lat=abc&lon=6.6").status, 400)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_upstream_requests_total{upstream="openweather"} 1"#), metrics)
        XCTAssertTrue(metrics.contains("pier_openweather_slots_dropped_total 1"))
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""lake-weather":{"status":"ok""#), health)
        XCTAssertTrue(health.contains(#""left_today":29999"#), health)
        XCTAssertEqual(pier.stop(), 0)
        for text in [health, metrics, pier.standardOutput()] {
            XCTAssertFalse(text.contains(key), "the key is never shown")
            XCTAssertFalse(text.contains("the-apps-old-key"), "the app's key is never logged")
        }
    }
}
