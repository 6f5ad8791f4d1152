import Feature
import Foundation
import Geography
@testable import LakeWeather
@testable import LakeWeatherFormat
import UpstreamTesting
import XCTest


final class ForecastDocumentTests: XCTestCase {
    static let fixtures = ["forecast-zurich-2026-07-04.json", "forecast-rapperswil-2026-11-23.json", "forecast-ouchy-2026-11-23.json"]

    static func render(_ document: ForecastDocument) -> [UInt8] {
        document.rendered(daily: DailySummary.json(DailySummary.days(document.slots, utcOffset: document.utcOffset)))
    }

    /// Every fixture decodes with the app's model after Pier's changes, and its daily summary equals the one an
    /// independent Python reading of the contract computed (scripts/fixtures/gen_openweather_daily.py).
    func testEveryFixtureDecodesAsTheAppDecodesAndItsDailySummaryMatches() throws {
        struct Expected: Decodable {
            let slots: Int
            let daily: [PierDaily.Day]
        }
        let expected = try JSONDecoder().decode([String: Expected].self, from: Data(Fixtures.bytes("openweather", "daily-expected.json")))
        for name in Self.fixtures {
            let body = try Fixtures.bytes("openweather", name)
            let document = try ForecastDocument(parsing: body)
            let rendered = Self.render(document)
            let app = try JSONDecoder().decode(AppForecast.self, from: Data(rendered))
            let pier = try JSONDecoder().decode(PierDaily.self, from: Data(rendered))
            let wanted = try XCTUnwrap(expected[name])
            XCTAssertEqual(app.list.count, wanted.slots, name)
            XCTAssertEqual(pier.cnt, wanted.slots, name)
            XCTAssertEqual(pier.daily, wanted.daily, name)
            // The upstream's bytes pass unchanged: every kept slot's text, and everything outside `list` and `cnt`.
            let original = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            var served = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(rendered)) as? [String: Any])
            XCTAssertNotNil(served.removeValue(forKey: "daily"))
            for key in original.keys where key != "list" && key != "cnt" {
                XCTAssertEqual(
                    try JSONSerialization.data(withJSONObject: [try XCTUnwrap(served[key])], options: .sortedKeys),
                    try JSONSerialization.data(withJSONObject: [try XCTUnwrap(original[key])], options: .sortedKeys), "\(name) \(key)")
            }
            for slot in document.slots {
                XCTAssertNotNil(rendered.firstRange(of: body[slot.range]), "\(name): a slot's bytes changed")
            }
        }
    }

    func testTheOuchySlotWithoutWindDegIsDroppedAndNamed() throws {
        let document = try ForecastDocument(parsing: try Fixtures.bytes("openweather", "forecast-ouchy-2026-11-23.json"))
        XCTAssertEqual(document.dropped, ["wind.deg missing or not an integer"])
        XCTAssertEqual(document.slots.count, 39)
        XCTAssertFalse(document.slots.contains { $0.time == 1_795_467_600 }, "2026-11-23 21:00 UTC is the slot without wind.deg")
        // No gust in any slot: gust_max is null every day.
        let days = DailySummary.days(document.slots, utcOffset: document.utcOffset)
        XCTAssertTrue(days.allSatisfy { $0.gustMaximum == nil })
    }

    func testAnswersThatAreNotAForecastAreRefused() throws {
        let valid = String(decoding: try Fixtures.bytes("openweather", "forecast-rapperswil-2026-11-23.json"), as: UTF8.self)
        let withoutDegrees = valid.replacingOccurrences(of: #""deg""#, with: #""direction""#)
        let floatDegrees = valid.replacingOccurrences(of: #"("deg": ?)([0-9]+)"#, with: "$1$2.5", options: .regularExpression)
        for (text, why) in [
            ("<html>Bad gateway</html>", "not JSON"), (#"{"cod":"200","list":"none","city":{"timezone":0}}"#, "no list array"),
            (#"{"cod":"200","list":[],"city":{"timezone":0}}"#, "empty list"), (#"{"cod":"200","list":[{"dt":1}]}"#, "no timezone"),
            (withoutDegrees, "no slot has wind.deg"), (floatDegrees, "wind.deg not an integer anywhere"),
            (String(valid.dropLast(40)), "truncated"),
            (valid.replacingOccurrences(of: #""temp": ?([0-9])"#, with: #""temp": 27$1"#, options: .regularExpression), "Kelvin, not metric"),
        ] {
            XCTAssertThrowsError(try ForecastDocument(parsing: Array(text.utf8)), why)
        }
    }

    func testSeverityOrderAndMorningWindow() {
        let ids = [800, 804, 801, 741, 300, 501, 500, 600, 211]
        XCTAssertEqual(ids.sorted { DailySummary.severity($0) > DailySummary.severity($1) }, [211, 600, 501, 500, 300, 741, 804, 801, 800])
        func slot(_ hour: Int, _ temperature: Double) -> ForecastDocument.Slot {
            ForecastDocument.Slot(time: hour * 3600, temperature: temperature, windSpeed: 1, gust: nil, weatherID: 800, daytime: nil, range: 0..<0)
        }
        // Local = UTC + 1 h 30: slots at 07:30 and 10:30 are both 90 minutes from 09:00 — the earlier wins.
        XCTAssertEqual(DailySummary.temperature(near: 9 * 3600, in: [slot(6, 1), slot(9, 2)], utcOffset: 5400), 1)
        // Nothing within 90 minutes: null.
        XCTAssertNil(DailySummary.temperature(near: 9 * 3600, in: [slot(12, 1)], utcOffset: 0))
    }

    func testCellsRoundToTheGridAndWriteStableKeys() throws {
        let zurich = ForecastCell(try XCTUnwrap(Coordinate(latitude: 47.3657, longitude: 8.5410)), size: 0.05)
        XCTAssertEqual(zurich.description, "47.35,8.55")
        let near = ForecastCell(try XCTUnwrap(Coordinate(latitude: 47.3701, longitude: 8.5399)), size: 0.05)
        XCTAssertEqual(near, zurich)
        XCTAssertEqual(ForecastCell(try XCTUnwrap(Coordinate(latitude: -0.01, longitude: -0.01)), size: 0.05).description, "0.00,0.00")
        XCTAssertEqual(ForecastCell(try XCTUnwrap(Coordinate(latitude: 89.99, longitude: 179.99)), size: 0.1).description, "90.0,180.0")
    }
}
