@testable import FMIFormat
import Feature
import Foundation
import Geography
import Parsing
import UpstreamTesting
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

/// What a forecast holds in memory: the compact hourly series and its encodings.
final class ForecastMemoryTests: XCTestCase {
    private func hours(_ count: Int, from start: Date = Date(timeIntervalSince1970: 1_795_003_200)) -> [Forecast.Hour] {
        (0..<count).map { index in
            Forecast.Hour(
                validAt: start.addingTimeInterval(Double(index) * 3600), temperature: Double(index % 400 - 200) / 10,
                windSpeed: Double(index % 250) / 10, windDirection: Double(index % 361), humidity: index % 5 == 0 ? nil : 44.62,
                pressure: Double(103_003 - index % 90 * 100) / 100, precipitation: Double(index % 7) / 100, symbolCode: [1, 3, 21, 33, 91][index % 5],
                windGust: index % 3 == 0 ? nil : Double(index % 400) / 10, feelsLike: Double(index % 500 - 300) / 10)
        }
    }

    func testTheCompactSeriesRoundTripsFMIsResolutionExactly() throws {
        let original = hours(240)
        let series = HourlySeries(hours: original)
        XCTAssertEqual(series.count, 240)
        XCTAssertEqual(series.hours, original)
        XCTAssertTrue((240 * 20 + 32...240 * 20 + 32 + 64).contains(series.byteCount), "20 bytes an hour (and malloc's rounding): \(series.byteCount)")
        XCTAssertEqual(series.lastValidAt, original.last?.validAt)

        // The fixture and a real FMI answer (two decimals: 230.44, -9.15, 1030.03) survive unchanged.
        for (folder, file) in [("fmi", "forecast-point.xml"), ("fmi/real", "extra-forecast-timevaluepair-hirlam-nested.xml")] {
            let parsed = try FMIDocumentParser.parse(Fixtures.bytes(folder, file))
            let forecast = Forecast(cell: GridCell(latitude: 60.17, longitude: 24.94), fetchedAt: Date(), series: parsed)
            var plain: [Date: Forecast.Hour] = [:]
            for entry in parsed {
                for point in entry.points {
                    var hour = plain[point.time] ?? Forecast.Hour(validAt: point.time)
                    switch entry.parameter.lowercased() {
                    case "temperature": hour.temperature = point.value
                    case "windspeedms": hour.windSpeed = point.value
                    case "winddirection": hour.windDirection = point.value
                    case "humidity": hour.humidity = point.value
                    case "pressure": hour.pressure = point.value
                    case "precipitation1h": hour.precipitation = point.value
                    case "weathersymbol3": hour.symbolCode = point.value
                    default: continue
                    }
                    plain[point.time] = hour
                }
            }
            let expected = plain.values.filter { $0.temperature != nil || $0.windSpeed != nil || $0.symbolCode != nil || $0.humidity != nil || $0.precipitation != nil }
                .sorted { $0.validAt < $1.validAt }
            XCTAssertFalse(expected.isEmpty, file)
            XCTAssertEqual(forecast.hours, expected, file)
        }
    }

    func testValuesOutsideASlotsRangeAreMissingNotWrong() {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let odd = [Forecast.Hour(validAt: start, temperature: 400, windSpeed: .nan, pressure: 1500, precipitation: -0.004, symbolCode: 3.0)]
        let hour = HourlySeries(hours: odd).hours[0]
        XCTAssertNil(hour.temperature)
        XCTAssertNil(hour.windSpeed)
        XCTAssertNil(hour.pressure)
        XCTAssertEqual(hour.precipitation, 0)
        XCTAssertEqual(hour.symbolCode, 3)
        let late = HourlySeries(hours: [Forecast.Hour(validAt: start), Forecast.Hour(validAt: start.addingTimeInterval(50 * 86_400), temperature: 1)])
        XCTAssertEqual(late.count, 1, "beyond 45 days of minutes an hour is dropped")
    }

    /// A forecast's encodings are made once per hour and charged up front: even values with the longest decimals and
    /// every hour present stay within ``ForecastEncodings/maximumBytes``.
    func testEncodingsAreMadeOncePerHourWithinWhatTheyAreCharged() throws {
        let now = Date(timeIntervalSince1970: 1_795_003_200)
        let timeZone = try XCTUnwrap(TimeZone(identifier: "Europe/Helsinki"))
        let today = CalendarDate(now, in: timeZone)
        let longest = (0..<240).map { (index: Int) -> Forecast.Hour in
            let step = Double(index)
            let feelsLike: Double? = index % 2 == 0 ? nil : -49.99
            return Forecast.Hour(
                validAt: now.addingTimeInterval(step * 3600), temperature: -39.99 + step / 300, windSpeed: 1.0 / 3, windDirection: 359.99,
                humidity: 99.99, pressure: 1099.99, precipitation: 99.99 - step / 7, symbolCode: 2, windGust: 249.99, feelsLike: feelsLike)
        }
        let forecast = Forecast(cell: GridCell(latitude: 60.17, longitude: 24.94), fetchedAt: now, hours: longest)
        let parts = try forecast.encoded(today: today, now: now, timeZone: timeZone)
        XCTAssertEqual(parts.hourly.filter { $0 == UInt8(ascii: "{") }.count, HourlyForecast.count)
        XCTAssertLessThanOrEqual(parts.daily.count + parts.hourly.count, ForecastEncodings.maximumBytes)
        XCTAssertGreaterThan(forecast.byteCount, forecast.series.byteCount + ForecastEncodings.maximumBytes - 1, "charged with the forecast")

        // The same hour: the bytes made before (a copy of the forecast shares them); the next hour: made again.
        let copy = forecast
        let again = try copy.encoded(today: today, now: now.addingTimeInterval(1800), timeZone: timeZone)
        XCTAssertEqual(again.hourly.withUnsafeBufferPointer { $0.baseAddress }, parts.hourly.withUnsafeBufferPointer { $0.baseAddress })
        let later = try forecast.encoded(today: today, now: now.addingTimeInterval(3600), timeZone: timeZone)
        XCTAssertNotEqual(later.hourly, parts.hourly, "the 48 hours start an hour later")
    }
}
