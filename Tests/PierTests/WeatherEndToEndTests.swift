import DatabaseTesting
import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// `GET /v1/weather` from the real binary, with FMI played by the local fixture upstream.
final class WeatherEndToEndTests: EndToEndTestCase {
    /// The screen's model as the Finnish weather app declares it.
    struct WeatherAPIResponse: Codable {
        struct Station: Codable { let name: String; let distance_km: Double }
        struct Current: Codable {
            let temperature: Double?
            let feels_like: Double?
            let wind_speed: Double?
            let wind_direction: Double?
            let humidity: Double?
            let pressure: Double?
            let symbol: String?
            let observed_at: String
        }
        struct Day: Codable {
            let date: String
            let high: Double?
            let low: Double?
            let symbol: String?
            let wind_speed_avg: Double?
            let precipitation_mm: Double?
        }
        let station: Station
        let current: Current
        let daily_forecast: [Day]
    }

    private func weather(_ pier: PierProcess, _ query: String, headers: [(String, String)] = []) throws -> RawResponse {
        try RawClient.request(port: pier.port, "/v1/weather?\(query)", headers: headers)
    }

    func testTheWeatherScreenInOneRequest() throws {
        let pier = try startPier()
        var response = try weather(pier, "lat=60.17&lon=24.94")
        let deadline = Date().addingTimeInterval(20)
        while response.status != 200 && Date() < deadline {
            usleep(100_000)
            response = try weather(pier, "lat=60.17&lon=24.94")
        }
        XCTAssertEqual(response.status, 200, response.bodyText)
        let screen = try JSONDecoder().decode(WeatherAPIResponse.self, from: Data(response.body))
        // Kaisaniemi's newest temperature is NaN in the fixture; its older ones keep it the nearest station.
        XCTAssertEqual(screen.station.name, "Helsinki Kaisaniemi")
        XCTAssertLessThan(screen.station.distance_km, 1)
        XCTAssertNotNil(screen.current.temperature)
        XCTAssertNotNil(screen.current.feels_like)
        let symbols = ["clear", "partly_cloudy", "cloudy", "fog", "drizzle", "rain", "heavy_rain", "sleet", "snow", "heavy_snow", "thunderstorm"]
        XCTAssertTrue(screen.current.symbol.map(symbols.contains) ?? true)
        XCTAssertGreaterThanOrEqual(screen.daily_forecast.count, 10)
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "Europe/Helsinki")!, formatOptions: [.withFullDate])
        XCTAssertEqual(screen.daily_forecast.first?.date, today)
        for day in screen.daily_forecast {
            XCTAssertTrue(symbols.contains(day.symbol ?? "clear"))
            if let high = day.high, let low = day.low { XCTAssertGreaterThanOrEqual(high, low) }
        }
        XCTAssertFalse(response.bodyText.contains("NaN"))
        XCTAssertEqual(response.header("Access-Control-Allow-Origin"), "*")
        let etag = try XCTUnwrap(response.header("ETag"))
        XCTAssertEqual(try weather(pier, "lat=60.17&lon=24.94", headers: [("If-None-Match", etag)]).status, 304)

        let forecastCalls = upstream.requests(.fmi).filter { $0.query["latlon"] != nil }.count
        XCTAssertEqual(try weather(pier, "lat=60.1702&lon=24.9405").status, 200)
        XCTAssertEqual(upstream.requests(.fmi).filter { $0.query["latlon"] != nil }.count, forecastCalls, "same cell: served from memory")

        let weatherSource = try JSONSerialization.jsonObject(with: Data(try RawClient.request(port: pier.port, "/health").body)) as? [String: Any]
        XCTAssertEqual(((weatherSource?["sources"] as? [String: Any])?["weather"] as? [String: Any])?["status"] as? String, "ok")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testAStaleForecastIsServedAndMarkedWhenFMIFails() throws {
        let pier = try startPier(["PIER_FORECAST_TTL_S": "0.3"])
        var first = try weather(pier, "lat=61.5&lon=23.76")
        let deadline = Date().addingTimeInterval(20)
        while first.status != 200 && Date() < deadline {
            usleep(100_000)
            first = try weather(pier, "lat=61.5&lon=23.76")
        }
        XCTAssertEqual(first.status, 200)
        XCTAssertNil(first.header("X-Pier-Stale"))
        upstream.set(.fmi, .status(500))
        usleep(400_000)
        let stale = try weather(pier, "lat=61.5&lon=23.76")
        XCTAssertEqual(stale.status, 200)
        XCTAssertEqual(stale.header("X-Pier-Stale"), "forecast")
        XCTAssertEqual(stale.header("Warning"), "110 - \"Response is Stale\"")
        let never = try weather(pier, "lat=65.0&lon=25.5")
        XCTAssertEqual(never.status, 503, "no forecast stored for this cell and FMI failing")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testBadCoordinatesAre400AndOutsideCoverageIs422() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        let bad = ["", "lat=60.17", "lon=24.94", "lat=abc&lon=24.94", "lat=60.17&lon=", "lat=nan&lon=24.94", "lat=inf&lon=24.94",
                   "lat=91&lon=24.94", "lat=60&lon=-181", "lat=1e400&lon=3"]
        for query in bad {
            let response = try weather(pier, query)
            XCTAssertEqual(response.status, 400, query)
            let message = try JSONDecoder().decode(ErrorAPIResponse.self, from: Data(response.body)).error
            XCTAssertTrue(message.contains("lat") || message.contains("lon"), "\(query): \(message)")
        }
        for query in ["lat=48.85&lon=2.35", "lat=-33.9&lon=151.2", "lat=59.33&lon=18.07"] {
            let response = try weather(pier, query)
            XCTAssertEqual(response.status, 422, query)
            XCTAssertTrue(try JSONDecoder().decode(ErrorAPIResponse.self, from: Data(response.body)).error.contains("outside"))
        }
        let noData = try weather(pier, "lat=60.17&lon=24.94")
        XCTAssertEqual(noData.status, 503, "no observations yet")
        XCTAssertNotNil(noData.header("Retry-After"))
        XCTAssertEqual(pier.stop(), 0)
    }

    func testFetchWeatherOnceAndAnFMIExceptionFails() throws {
        func fetch() throws -> Int32 {
            let process = try PierProcess(
                arguments: ["fetch", "weather", "--once"], database: database, environment: ["PIER_FMI_URL": upstream.fmiURL])
            process.process.waitUntilExit()
            return process.process.terminationStatus
        }
        XCTAssertEqual(try fetch(), 0)
        upstream.set(.fmi, .exception)
        XCTAssertNotEqual(try fetch(), 0)
        let stations = try database.connection().query("SELECT count(*) AS n FROM weather_stations")[0].decode(Int.self, "n")
        XCTAssertEqual(stations, 8)
    }
}

extension ISO8601DateFormatter {
    static func string(from date: Date, timeZone: TimeZone, formatOptions: ISO8601DateFormatter.Options) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        formatter.formatOptions = formatOptions
        return formatter.string(from: date)
    }
}
