import DatabaseTesting
import Foundation
import HTTPTesting
import Parsing
import UpstreamTesting
import XCTest

/// `GET /v1/weather` from the real binary, with FMI played by the local fixture upstream.
/// Any JSON value (for members a test only counts).
enum JSONValue: Decodable {
    case value
    init(from decoder: any Decoder) throws { self = .value }
}

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
        let response = try waitForData(pier, "/v1/weather?lat=60.17&lon=24.94")
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
        // The observations are served a moment before their run is recorded as finished, and the warnings (part of
        // the answer and its ETag) may still be loading: once both are done, the answer stays the same.
        try waitForSources(pier, ["weather", "warnings"])
        let settled = try weather(pier, "lat=60.17&lon=24.94")
        let etag = try XCTUnwrap(settled.header("ETag"))
        XCTAssertEqual(try weather(pier, "lat=60.17&lon=24.94", headers: [("If-None-Match", etag)]).status, 304)

        let forecastCalls = upstream.requests(.fmi).filter { $0.query["latlon"] != nil }.count
        XCTAssertEqual(try weather(pier, "lat=60.1702&lon=24.9405").status, 200)
        XCTAssertEqual(upstream.requests(.fmi).filter { $0.query["latlon"] != nil }.count, forecastCalls, "same cell: served from memory")

        XCTAssertEqual(pier.stop(), 0)
    }

    func testTheHourlyForecastAndTenDaysComeFromTheEditedForecast() throws {
        struct Hour: Decodable {
            let time: String
            let temperature: Double?
            let feels_like: Double?
            let wind_speed: Double?
            let wind_direction: Double?
            let wind_gust: Double?
            let humidity: Double?
            let precipitation_mm: Double?
            let symbol: String?
        }
        struct Source: Decodable, Equatable { let name: String; let attribution: String }
        struct Screen: Decodable { let hourly_forecast: [Hour]; let daily_forecast: [WeatherAPIResponse.Day]; let forecast_source: Source }
        upstream.set(.fmi, .editedForecast)
        let pier = try startPier()
        let response = try waitForData(pier, "/v1/weather?lat=60.17&lon=24.94")
        // The v1 app's model still decodes the answer.
        XCTAssertNoThrow(try JSONDecoder().decode(WeatherAPIResponse.self, from: Data(response.body)))
        let screen = try JSONDecoder().decode(Screen.self, from: Data(response.body))
        let hour = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600)
        let times = (0..<48).map { Timestamp.iso8601(hour.addingTimeInterval(Double($0) * 3600)) }
        XCTAssertEqual(screen.hourly_forecast.map(\.time), times, "48 hours from the current whole hour")
        // FMI's own gust and feels-like (the fixture's first hour: gust 12.6 m/s, feels like −9.3 °C, moved to now).
        let first = try XCTUnwrap(screen.hourly_forecast.first)
        XCTAssertEqual(first.wind_gust, 12.6)
        XCTAssertEqual(first.feels_like, -9.3)
        XCTAssertEqual(first.temperature, -2.7)
        XCTAssertNotNil(first.symbol)
        XCTAssertEqual(screen.daily_forecast.count, 10, "ten days")
        XCTAssertEqual(screen.forecast_source, Source(name: "FMI", attribution: "Finnish Meteorological Institute (FMI) open data, CC BY 4.0"))
        // The day and the hours agree: today's high is at least every hour of today's.
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "Europe/Helsinki")!, formatOptions: [.withFullDate])
        let todayHours = screen.hourly_forecast.filter { hour in
            let date = ISO8601DateFormatter().date(from: hour.time)!
            return ISO8601DateFormatter.string(from: date, timeZone: TimeZone(identifier: "Europe/Helsinki")!, formatOptions: [.withFullDate]) == today
        }
        if let high = screen.daily_forecast.first?.high {
            XCTAssertTrue(todayHours.allSatisfy { ($0.temperature ?? -99) <= high + 0.05 })
        }
        // Pier asked for the window: from the current hour, ten days, with the gust and feels-like.
        let asked = try XCTUnwrap(upstream.requests(.fmi).first { $0.query["latlon"] != nil })
        XCTAssertEqual(asked.query["starttime"], Timestamp.iso8601(hour))
        XCTAssertEqual(asked.query["endtime"], Timestamp.iso8601(hour.addingTimeInterval(240 * 3600)))
        XCTAssertTrue(asked.query["parameters"]?.contains("HourlyMaximumGust") == true)
        XCTAssertTrue(asked.query["parameters"]?.contains("FeelsLike") == true)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testAPlaceNameIsResolvedByFMIRememberedAndEchoed() throws {
        struct Location: Decodable, Equatable { let name: String; let lat: Double; let lon: Double }
        struct Screen: Decodable { let location: Location; let station: WeatherAPIResponse.Station; let hourly_forecast: [[String: JSONValue]] }
        let pier = try startPier()
        _ = try waitForData(pier, "/v1/weather?lat=60.17&lon=24.94")
        let before = upstream.requests(.fmi).filter { $0.query["place"] != nil }.count
        let response = try weather(pier, "place=%20kumpula%20")
        XCTAssertEqual(response.status, 200, response.bodyText)
        let screen = try JSONDecoder().decode(Screen.self, from: Data(response.body))
        XCTAssertEqual(screen.location, Location(name: "Kumpula", lat: 60.20307, lon: 24.96131))
        XCTAssertEqual(screen.hourly_forecast.count, 48)
        XCTAssertNoThrow(try JSONDecoder().decode(WeatherAPIResponse.self, from: Data(response.body)), "the v1 app still decodes it")
        // Remembered: the same name in another spelling costs no FMI call, and the place's forecast came with it.
        XCTAssertEqual(try weather(pier, "place=KUMPULA").body, response.body)
        XCTAssertEqual(upstream.requests(.fmi).filter { $0.query["place"] != nil }.count, before + 1)
        XCTAssertEqual(upstream.requests(.fmi).filter { $0.query["place"] != nil }.last?.query["place"], "kumpula")
        // Unknown to FMI: 404, remembered too; bad requests: 400.
        XCTAssertEqual(try weather(pier, "place=Atlantis").status, 404)
        XCTAssertEqual(try weather(pier, "place=atlantis").status, 404)
        XCTAssertEqual(upstream.requests(.fmi).filter { $0.query["place"] != nil }.count, before + 2)
        XCTAssertEqual(try weather(pier, "place=%20").status, 400)
        XCTAssertEqual(try weather(pier, "place=Kumpula&lat=60.2&lon=24.9").status, 400)
        // Every replica knows: another process answers from PostgreSQL without asking FMI for the name.
        XCTAssertEqual(pier.stop(), 0)
        let replica = try startPier()
        _ = try waitForData(replica, "/v1/weather?lat=60.17&lon=24.94")
        XCTAssertEqual(try weather(replica, "place=Kumpula").status, 200)
        XCTAssertEqual(try weather(replica, "place=Atlantis").status, 404)
        XCTAssertEqual(upstream.requests(.fmi).filter { $0.query["place"] != nil }.count, before + 2)
        let health = try RawClient.request(port: replica.port, "/health").bodyText
        XCTAssertFalse(health.lowercased().contains("kumpula") || health.lowercased().contains("atlantis"), "states, not requests")
        XCTAssertEqual(fmiUpstreamState(replica), "unknown", "this replica has not asked FMI anything")
        // A lookup FMI does not answer is FMI's state too (one upstream, one state): unreachable, not the forecasts' last.
        upstream.set(.fmi, .hang)
        XCTAssertEqual(try weather(replica, "place=Oulu").status, 503)
        XCTAssertEqual(fmiUpstreamState(replica), "unreachable")
        XCTAssertEqual(replica.stop(), 0)
    }

    /// `/health`'s `weather.fmi.upstream`.
    private func fmiUpstreamState(_ pier: PierProcess) -> String? {
        let health = (try? RawClient.request(port: pier.port, "/health").body).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
        return (((health?["sources"] as? [String: Any])?["weather"] as? [String: Any])?["fmi"] as? [String: Any])?["upstream"] as? String
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

    func testWhenFMIFailsTheForecastComesFromMETNorwayAndSaysSo() throws {
        struct Source: Decodable { let name: String; let attribution: String }
        struct Screen: Decodable { let forecast_source: Source; let hourly_forecast: [[String: JSONValue]]; let daily_forecast: [[String: JSONValue]] }
        let pier = try startPier(["PIER_CONTACT": "ops@example.org"])
        let own = try waitForData(pier, "/v1/weather?lat=60.17&lon=24.94")
        XCTAssertEqual(try JSONDecoder().decode(Screen.self, from: Data(own.body)).forecast_source.name, "FMI")
        upstream.set(.fmi, .status(500))
        let response = try weather(pier, "lat=65.01&lon=25.47")
        XCTAssertEqual(response.status, 200, response.bodyText)
        let screen = try JSONDecoder().decode(Screen.self, from: Data(response.body))
        XCTAssertEqual(screen.forecast_source.name, "MET Norway")
        XCTAssertTrue(screen.forecast_source.attribution.contains("MET Norway"))
        XCTAssertEqual(screen.hourly_forecast.count, 48)
        XCTAssertGreaterThanOrEqual(screen.daily_forecast.count, 9)
        XCTAssertNoThrow(try JSONDecoder().decode(WeatherAPIResponse.self, from: Data(response.body)), "the v1 app still decodes it")
        XCTAssertNil(response.header("X-Pier-Stale"))
        XCTAssertEqual(response.header("Cache-Control"), "public, max-age=60", "a stand-in is reused for a minute, then FMI is tried again")
        XCTAssertEqual(upstream.requests(.metNorway).first?.headers["user-agent"], "Pier/0.1.0 (ops@example.org)")
        XCTAssertEqual(upstream.requests(.metNorway).first?.query["lat"], "65.0100")
        XCTAssertEqual(try pier.metric(#"pier_upstream_requests_total{upstream="metno"}"#), 1)
        XCTAssertEqual(try pier.metric(#"pier_weather_answers_total{provenance="met_norway"}"#), 1)
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""metno":{"upstream":"reachable","paused_s":0,"budget":"#), health)
        XCTAssertEqual(pier.stop(), 0)
    }

    /// Polls until the observations are in (the first fetch runs at start-up), then answers `query`.
    private func firstAnswer(_ pier: PierProcess, _ query: String, headers: [(String, String)] = []) throws -> RawResponse {
        var response = try weather(pier, query, headers: headers)
        let deadline = Date().addingTimeInterval(20)
        while response.status == 503, response.bodyText.contains("station"), Date() < deadline {
            usleep(100_000)
            response = try weather(pier, query, headers: headers)
        }
        return response
    }

    private var forecastCalls: Int { upstream.requests(.fmi).filter { $0.query["latlon"] != nil }.count }

    func testWithoutATokenANeighbouringCellAnswersWithItsDistanceElse503() throws {
        // One token, refilled once a minute: the first cell spends it.
        let pier = try startPier(["PIER_FMI_REQUESTS_PER_MINUTE": "1", "PIER_FMI_BURST": "1", "PIER_FMI_CLIENT_SHARE": "1"])
        let own = try firstAnswer(pier, "lat=60.17&lon=24.94")
        XCTAssertEqual(own.status, 200, own.bodyText)
        XCTAssertNil(own.header("X-Pier-Forecast-Distance-Km"))
        XCTAssertNil(own.header("X-Pier-Stale"))
        XCTAssertEqual(forecastCalls, 1)

        // 3 km north-east: another cell, no token, the first cell stands in.
        let neighbour = try weather(pier, "lat=60.19&lon=24.98")
        XCTAssertEqual(neighbour.status, 200, neighbour.bodyText)
        let expected = String(format: "%.1f", GreatCircleForTests.kilometres(60.19, 24.98, 60.17, 24.94))
        XCTAssertEqual(neighbour.header("X-Pier-Forecast-Distance-Km"), expected)
        XCTAssertNil(neighbour.header("X-Pier-Stale"), "the neighbour's forecast is fresh")
        XCTAssertEqual(neighbour.header("Cache-Control"), "public, max-age=60")
        let screen = try JSONDecoder().decode(WeatherAPIResponse.self, from: Data(neighbour.body))
        let ownScreen = try JSONDecoder().decode(WeatherAPIResponse.self, from: Data(own.body))
        XCTAssertEqual(screen.daily_forecast.map(\.date), ownScreen.daily_forecast.map(\.date), "same shape, the neighbour's days")
        XCTAssertEqual(try weather(pier, "lat=60.19&lon=24.98").header("X-Pier-Forecast-Distance-Km"), expected, "reused for the same point")
        XCTAssertEqual(forecastCalls, 1)

        // 80 km away: nothing within 10 km, no token: 503 with the seconds until the next token.
        let none = try weather(pier, "lat=60.9&lon=24.94")
        XCTAssertEqual(none.status, 503)
        let retry = try XCTUnwrap(Int(none.header("Retry-After") ?? ""))
        XCTAssertTrue((1...60).contains(retry), "\(retry)")
        XCTAssertTrue(try JSONDecoder().decode(ErrorAPIResponse.self, from: Data(none.body)).error.contains("budget"))
        XCTAssertEqual(forecastCalls, 1)

        // Visible to operators.
        let health = try JSONSerialization.jsonObject(with: Data(try RawClient.request(port: pier.port, "/health").body)) as? [String: Any]
        let weatherSource = try XCTUnwrap((health?["sources"] as? [String: Any])?["weather"] as? [String: Any])
        let fmi = try XCTUnwrap(weatherSource["fmi"] as? [String: Any])
        XCTAssertEqual(fmi["upstream"] as? String, "reachable")
        let budget = try XCTUnwrap(fmi["budget"] as? [String: Any])
        XCTAssertEqual(budget["requests_per_minute"] as? Int, 1)
        XCTAssertEqual(budget["burst"] as? Int, 1)
        XCTAssertEqual(budget["granted"] as? Int, 1)
        XCTAssertEqual(budget["refused"] as? Int, 2)
        let cache = try XCTUnwrap(weatherSource["forecast_cache"] as? [String: Any])
        XCTAssertEqual(cache["budget_bytes"] as? Int, 64 << 20)
        XCTAssertGreaterThan(cache["bytes"] as? Int ?? 0, 4000)
        XCTAssertEqual(try pier.metric(#"pier_upstream_requests_total{upstream="fmi"}"#), 1)
        XCTAssertEqual(try pier.metric(#"pier_upstream_refusals_total{upstream="fmi",reason="budget"}"#), 2)
        XCTAssertEqual(try pier.metric(#"pier_weather_answers_total{provenance="own"}"#), 1)
        XCTAssertEqual(try pier.metric(#"pier_weather_answers_total{provenance="neighbour"}"#), 2)
        XCTAssertEqual(try pier.metric(#"pier_weather_answers_total{provenance="unavailable"}"#), 1)
        XCTAssertGreaterThan(try pier.metric("pier_weather_cache_bytes") ?? 0, 4000)
        XCTAssertEqual(pier.stop(), 0)
    }

    /// A flood of distinct points over many cells keeps weather's memory within `PIER_WEATHER_CACHE_MB`: the engine's
    /// forecasts (with their encodings) within their half, evicting the least used; the ready answers within theirs.
    func testAFloodOfDistinctPointsKeepsWeathersMemoryWithinItsBytes() throws {
        let pier = try startPier([
            "PIER_WEATHER_CACHE_MB": "1", "PIER_FMI_REQUESTS_PER_MINUTE": "6000", "PIER_FMI_BURST": "1000", "PIER_FMI_CLIENT_SHARE": "1",
        ])
        XCTAssertEqual(try firstAnswer(pier, "lat=61.000&lon=24.0").status, 200)
        for cell in 0..<40 {
            for point in 0..<4 {
                let response = try weather(pier, "lat=\(61.0 + Double(cell) * 0.01 + Double(point) * 0.001)&lon=24.00\(point)")
                XCTAssertEqual(response.status, 200, response.bodyText)
            }
        }
        XCTAssertEqual(forecastCalls, 40, "one call per cell")
        let health = try JSONSerialization.jsonObject(with: Data(try RawClient.request(port: pier.port, "/health").body)) as? [String: Any]
        let weatherSource = try XCTUnwrap((health?["sources"] as? [String: Any])?["weather"] as? [String: Any])
        let cache = try XCTUnwrap(weatherSource["forecast_cache"] as? [String: Any])
        XCTAssertEqual(cache["budget_bytes"] as? Int, 1 << 20)
        let bytes = try XCTUnwrap(cache["bytes"] as? Int)
        XCTAssertGreaterThan(bytes, 100_000)
        XCTAssertLessThanOrEqual(bytes, 1 << 20)
        let forecasts = try XCTUnwrap(cache["forecasts"] as? Int)
        XCTAssertLessThan(forecasts, 40, "the least used forecasts left for space")
        XCTAssertGreaterThan(cache["evictions"] as? Int ?? 0, 0)
        XCTAssertLessThanOrEqual(try XCTUnwrap(pier.metric("pier_weather_cache_bytes")), Double(1 << 20))

        // The newest cell is still answered from memory; an evicted one from PostgreSQL, not FMI.
        XCTAssertEqual(try weather(pier, "lat=61.39&lon=24.0").status, 200)
        XCTAssertEqual(try weather(pier, "lat=61.0&lon=24.0").status, 200)
        XCTAssertEqual(forecastCalls, 40)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testOneClientBehindTheProxyCannotDrainTheBudgetWhileAnotherGetsItsOwnCell() throws {
        // A burst of 8 and a quarter share: each client may start two FMI calls. The test client connects
        // from 127.0.0.1, a trusted proxy by default, so X-Forwarded-For names the client.
        let pier = try startPier(["PIER_FMI_REQUESTS_PER_MINUTE": "1", "PIER_FMI_BURST": "8"])
        let greedy = [("X-Forwarded-For", "203.0.113.5, 10.0.0.1")]
        XCTAssertEqual(try firstAnswer(pier, "lat=61.00&lon=24.0", headers: greedy).status, 200)
        var neighbours = 0
        for step in 1..<8 {
            let response = try weather(pier, "lat=\(61.0 + Double(step) * 0.01)&lon=24.0", headers: greedy)
            XCTAssertEqual(response.status, 200, "degraded, never refused: \(response.bodyText)")
            if response.header("X-Pier-Forecast-Distance-Km") != nil { neighbours += 1 }
        }
        XCTAssertEqual(forecastCalls, 2, "two own cells for the greedy client")
        XCTAssertEqual(neighbours, 6)

        let polite = try weather(pier, "lat=61.05&lon=24.5", headers: [("X-Forwarded-For", "198.51.100.7")])
        XCTAssertEqual(polite.status, 200)
        XCTAssertNil(polite.header("X-Pier-Forecast-Distance-Km"), "its own cell")
        XCTAssertEqual(forecastCalls, 3)
        XCTAssertEqual(try pier.metric(#"pier_upstream_refusals_total{upstream="fmi",reason="client_share",group="ipv4/32"}"#), 6)
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

/// The same sphere as the service's (PostGIS's mean radius), to check the distance header.
enum GreatCircleForTests {
    static func kilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let φ1 = lat1 * .pi / 180, φ2 = lat2 * .pi / 180
        let Δφ = (lat2 - lat1) * .pi / 180, Δλ = (lon2 - lon1) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * 6371.0087714 * asin(min(1, sqrt(a)))
    }
}
