import Fetching
import Foundation
@testable import Weather
import XCTest

final class WeatherLogicTests: XCTestCase {
    let helsinki = TimeZone(identifier: "Europe/Helsinki")!

    private func date(_ text: String) -> Date { FMITime.parse(text)! }

    func testFeelsLikeMatchesFMIsVectors() {
        let cases: [(Double, Double, Double, Double)] = [(0, 5, 50, -4.980), (-5, 5, 50, -10.653), (25, 5, 50, 23.385), (25, 5, 90, 26.588)]
        for (t, ws, rh, expected) in cases {
            XCTAssertEqual(FeelsLike.temperature(celsius: t, windSpeed: ws, humidity: rh) ?? .nan, expected, accuracy: 0.001, "\(t) \(ws) \(rh)")
        }
        XCTAssertEqual(FeelsLike.temperature(celsius: 3, windSpeed: 0, humidity: 80) ?? .nan, 3, accuracy: 1e-9)
        XCTAssertNil(FeelsLike.temperature(celsius: 3, windSpeed: nil, humidity: 80))
        XCTAssertNil(FeelsLike.temperature(celsius: nil, windSpeed: 1, humidity: 80))
    }

    func testSymbolsComeFromOneTable() {
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: 1.0), .clear)
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: 3.0), .cloudy)
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: 33), .heavy_rain)
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: 53), .heavy_snow)
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: 82), .sleet)
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: 63), .thunderstorm)
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: 92), .fog)
        XCTAssertNil(WeatherSymbol(weatherSymbol3: .nan))
        XCTAssertNil(WeatherSymbol(weatherSymbol3: 7))
        XCTAssertEqual(WeatherSymbol(wawa: 0, cloudCover: 8), .cloudy)
        XCTAssertEqual(WeatherSymbol(wawa: 0, cloudCover: 1), .clear)
        XCTAssertEqual(WeatherSymbol(wawa: 21, cloudCover: 4), .partly_cloudy, "precipitation in the past hour is not weather now")
        XCTAssertNil(WeatherSymbol(wawa: 0, cloudCover: 9), "9 oktas means unknown, not overcast")
        XCTAssertEqual(WeatherSymbol(wawa: 61, cloudCover: nil), .rain)
        XCTAssertEqual(WeatherSymbol(wawa: 71, cloudCover: 8), .snow)
        XCTAssertEqual(WeatherSymbol(wawa: 10, cloudCover: 8), .fog)
        XCTAssertEqual(WeatherSymbol(wawa: 53, cloudCover: 8), .drizzle)
        XCTAssertEqual(WeatherSymbol(wawa: 95, cloudCover: 8), .thunderstorm)
    }

    func testGridCellsAreAboutOneKilometre() {
        let cell = GridCell(latitude: 60.1699, longitude: 24.9384)
        XCTAssertEqual(cell, GridCell(latitude: 60.172, longitude: 24.946))
        XCTAssertNotEqual(cell, GridCell(latitude: 60.18, longitude: 24.9384))
        XCTAssertEqual(cell.latitude, 60.17, accuracy: 1e-9)
        XCTAssertEqual(cell.longitude, 24.94, accuracy: 1e-9)
        XCTAssertLessThan(GreatCircle.kilometres(60.165, 24.93, 60.175, 24.95), 1.6)
    }

    func testDailyAggregationAcrossHelsinkiMidnight() {
        // 21:00Z and 22:00Z on 23 November are 23:00 and 00:00 in Helsinki (UTC+2).
        let hours = [
            Forecast.Hour(validAt: date("2026-11-23T20:00:00Z"), temperature: 1, windSpeed: 2, precipitation: 0.2, symbolCode: 3),
            Forecast.Hour(validAt: date("2026-11-23T21:00:00Z"), temperature: -1, windSpeed: 4, precipitation: 0.3, symbolCode: 31),
            Forecast.Hour(validAt: date("2026-11-23T22:00:00Z"), temperature: -3, windSpeed: 6, precipitation: -1, symbolCode: 41),
            Forecast.Hour(validAt: date("2026-11-23T23:00:00Z"), temperature: nil, windSpeed: nil, precipitation: nil, symbolCode: 1),
        ]
        let days = DailyForecast.days(from: hours, timeZone: helsinki, today: CalendarDate(year: 2026, month: 11, day: 23))
        XCTAssertEqual(days.map(\.date), ["2026-11-23", "2026-11-24"])
        XCTAssertEqual(days[0].high, 1)
        XCTAssertEqual(days[0].low, -1)
        XCTAssertEqual(days[0].windSpeedAverage, 3)
        XCTAssertEqual(days[0].precipitation, 0.5)
        XCTAssertEqual(days[0].symbol, .rain, "one cloudy and one rainy hour: the tie goes to rain")
        XCTAssertEqual(days[1].high, -3)
        XCTAssertEqual(days[1].precipitation, 0, "FMI's -1 means none")
        XCTAssertEqual(days[1].symbol, .snow)
        XCTAssertEqual(DailyForecast.days(from: hours, timeZone: helsinki, today: CalendarDate(year: 2026, month: 11, day: 24)).map(\.date), ["2026-11-24"])
    }

    func testDailyAggregationOverTheAutumnDSTChange() {
        // 25 October 2026: Helsinki goes from UTC+3 to UTC+2, so the local day has 25 hours (24-Oct 21:00Z .. 25-Oct 22:00Z).
        let start = date("2026-10-24T20:00:00Z")
        let hours = (0..<28).map { Forecast.Hour(validAt: start.addingTimeInterval(Double($0) * 3600), temperature: Double($0), symbolCode: 1) }
        let days = DailyForecast.days(from: hours, timeZone: helsinki, today: CalendarDate(year: 2026, month: 10, day: 24))
        XCTAssertEqual(days.map(\.date), ["2026-10-24", "2026-10-25", "2026-10-26"])
        XCTAssertEqual(days[1].low, 1, "24 Oct 21:00Z is 00:00 on the 25th (UTC+3)")
        XCTAssertEqual(days[1].high, 25, "25 Oct 22:00Z is 00:00 on the 26th (UTC+2): 25 hours in the day")
        XCTAssertEqual(days[2].low, 26)
    }

    func testMissingValuesAreNullInJSON() throws {
        let day = DailyForecast(date: CalendarDate(year: 2026, month: 1, day: 1), hours: [Forecast.Hour(validAt: Date(), symbolCode: 1)])
        let json = String(decoding: try JSONBodyForTests.encode(day), as: UTF8.self)
        XCTAssertTrue(json.contains(#""high":null"#), json)
        XCTAssertTrue(json.contains(#""precipitation_mm":null"#), json)
        XCTAssertTrue(json.contains(#""wind_speed_avg":null"#), json)
        XCTAssertTrue(json.contains(#""symbol":"clear""#), json)
    }
}

enum JSONBodyForTests {
    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(value)
    }
}
