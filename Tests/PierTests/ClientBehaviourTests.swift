import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// What the shipped apps do with Pier's answers, rebuilt from their documented logic and run on the real
/// binary's answers: decoding alone is not enough — each test fails when the app would show nothing, show
/// stale data, or fetch again needlessly.
final class ClientBehaviourTests: EndToEndTestCase {
    /// The Next Wave app's parsing and post-processing, as its sources do it (see the test names).
    enum NextWave {
        /// `VesselResponse.isDataCurrent`'s parsing (since October 2025): `ISO8601DateFormatter` with
        /// `[.withInternetDateTime, .withFractionalSeconds]`, which rejects whole seconds; a timestamp it cannot parse
        /// skips the check, and the app keeps whatever it has until 04:00 the next day.
        static func lastUpdated(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: text)
        }

        /// `isDataCurrent`: parsed, and from today on the phone's calendar (a Swiss phone's).
        static func isFresh(_ text: String, now: Date = Date()) -> Bool {
            guard let date = lastUpdated(text) else { return false }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "Europe/Zurich") ?? .current
            return calendar.isDate(date, inSameDayAs: now)
        }

        /// The date key the app builds for "today" (`yyyy-MM-dd`, the phone's Swiss time zone).
        static func dateKey(_ date: Date = Date()) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "Europe/Zurich")
            formatter.dateFormat = "yyyy-MM-dd"
            return formatter.string(from: date)
        }

        /// `VesselAPI`'s lookup: the course with its leading zeros removed (regex `^0+`) against each route's.
        static func ship(course: String, on date: String, in response: ShipsAPIResponse) -> String? {
            let wanted = course.replacingOccurrences(of: "^0+", with: "", options: .regularExpression)
            return response.dailyDeployments.first { $0.date == date }?.routes.first {
                $0.courseNumber.replacingOccurrences(of: "^0+", with: "", options: .regularExpression) == wanted
            }?.shipName
        }

        /// The lakes of the app's fallback table (the names it shows and looks up; MeteoNews' 32 lakes).
        static let lakes = [
            "Zürichsee", "Vierwaldstättersee", "Genfersee", "Bodensee", "Thunersee", "Brienzersee", "Zugersee", "Walensee",
            "Bielersee", "Neuenburgersee", "Murtensee", "Lago Maggiore", "Luganersee", "Sempachersee", "Hallwilersee",
            "Greifensee", "Pfäffikersee", "Ägerisee", "Baldeggersee", "Sarnersee", "Alpnachersee", "Sihlsee", "Lauerzersee",
            "Türlersee", "Katzensee", "Lützelsee", "Silsersee", "Silvaplanersee", "St. Moritzersee", "Lac de Joux",
            "Burgäschisee", "Mettmenhaslisee",
        ]

        /// The lakes of the app's `Data/stations.json` (its lake list; Aare is a river MeteoNews does not list).
        static let stationLakes = [
            "Zürichsee", "Vierwaldstättersee", "Bodensee", "Lac Léman", "Thunersee", "Brienzersee", "Lago Maggiore", "Lago di Lugano",
            "Bielersee", "Neuenburgersee", "Murtensee", "Zugersee", "Walensee", "Hallwilersee", "Ägerisee",
        ]

        /// The app's lake lookup: case-insensitive on the name, the first match.
        static func lake(_ name: String, in response: WaterTemperatureAPIResponse) -> WaterTemperatureAPIResponse.Lake? {
            response.lakes.first { $0.name.lowercased() == name.lowercased() }
        }
    }

    /// A `lastUpdated` the app parses (its formatter wants milliseconds), written as JavaScript's `toISOString()`.
    private func assertAppsParse(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotNil(NextWave.lastUpdated(text), "\(what) = \(text): ISO8601DateFormatter(.withInternetDateTime, .withFractionalSeconds)", file: file, line: line)
        XCTAssertNotNil(text.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression), "\(what) = \(text): toISOString()", file: file, line: line)
    }

    func testNextWaveKeepsTheShipsAndFindsEveryCourseOfToday() throws {
        let pier = try startPier()
        let response = try waitForData(pier, "/api/ships")
        let ships = try JSONDecoder().decode(ShipsAPIResponse.self, from: Data(response.body))
        assertAppsParse(ships.lastUpdated, "ships lastUpdated")
        XCTAssertTrue(NextWave.isFresh(ships.lastUpdated), "the app would decide \(ships.lastUpdated) is outdated and refetch on every screen")
        // The day the app asks for is there, and every course of it — written as the stationboard writes
        // courses (`000101`) or as ZSG does (`0101`) — finds its ship.
        let today = NextWave.dateKey()
        let routes = try XCTUnwrap(ships.dailyDeployments.first { $0.date == today }?.routes, "no day \(today): the app would show nothing")
        XCTAssertFalse(routes.isEmpty)
        for route in routes {
            let digits = route.courseNumber.replacingOccurrences(of: "^0+", with: "", options: .regularExpression)
            let padded = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
            XCTAssertEqual(NextWave.ship(course: padded, on: today, in: ships), routes.first { $0.courseNumber == route.courseNumber }?.shipName)
        }
        // The same data asked again with its tag costs no body: the app's cache revalidates, never refetches.
        // (Before the refresh below, which changes `lastUpdated` and so the tag.)
        let tag = try XCTUnwrap(response.header("etag"))
        XCTAssertEqual(try RawClient.request(port: pier.port, "/api/ships", headers: [("If-None-Match", tag)]).status, 304)
        // A refresh answers with a timestamp the app parses too.
        let refreshed = try RawClient.request(port: pier.port, "/api/ships/refresh", method: "POST", headers: [("Authorization", "Bearer s3cret-token")])
        XCTAssertEqual(refreshed.status, 200, refreshed.bodyText)
        assertAppsParse(try JSONDecoder().decode(RefreshAPIResponse.self, from: Data(refreshed.body)).lastUpdated, "refresh lastUpdated")
    }

    func testNextWaveFindsEveryLakeOfItsTableWithOptionalTemperatures() throws {
        let pier = try startPier()
        let water = try JSONDecoder().decode(WaterTemperatureAPIResponse.self, from: Data(try waitForData(pier, "/api/water-temp").body))
        assertAppsParse(water.lastUpdated, "lakes lastUpdated")
        XCTAssertTrue(NextWave.isFresh(water.lastUpdated))
        var withTemperature = 0
        for name in NextWave.lakes {
            let lake = try XCTUnwrap(NextWave.lake(name, in: water), "\(name): the app would show no data for it")
            if lake.temperature != nil { withTemperature += 1 }
            // The app looks names up as the user's locale writes them, upper or lower case.
            XCTAssertNotNil(NextWave.lake(name.uppercased(), in: water), name)
        }
        XCTAssertGreaterThanOrEqual(withTemperature, 28, "a temperature is optional, but most lakes have one")
        // The lakes of the app's stations.json, by its own names: Lac Léman and Lago di Lugano are Genfersee and
        // Luganersee at MeteoNews, with the same readings.
        for name in NextWave.stationLakes {
            XCTAssertNotNil(NextWave.lake(name, in: water), "\(name): the app would show no level or temperature")
        }
        for (app, meteoNews) in [("Lac Léman", "Genfersee"), ("lago di lugano", "Luganersee")] {
            let appLake = try XCTUnwrap(NextWave.lake(app, in: water)), lake = try XCTUnwrap(NextWave.lake(meteoNews, in: water))
            XCTAssertEqual(appLake.temperature, lake.temperature)
            XCTAssertEqual(appLake.waterLevel, lake.waterLevel)
        }
        XCTAssertEqual(Set(water.lakes.prefix(32).map(\.name)), Set(NextWave.lakes), "MeteoNews' lakes first")
        XCTAssertEqual(water.lakes.suffix(2).map(\.name), ["Lac Léman", "Lago di Lugano"], "then the app's names")
        XCTAssertTrue(water.lakes.contains { $0.temperature == nil }, "the fixture has lakes without a temperature: they must decode as nil")
        // `currentSwissTime` is a display string (`23.11.2026, 04:00:02`), not a timestamp; it must still read as one.
        let swiss = DateFormatter()
        swiss.locale = Locale(identifier: "de_CH")
        swiss.timeZone = TimeZone(identifier: "Europe/Zurich")
        swiss.dateFormat = "dd.MM.yyyy, HH:mm:ss"
        XCTAssertEqual(swiss.date(from: water.debug.currentSwissTime).map { Int($0.timeIntervalSince1970) },
                       NextWave.lastUpdated(water.lastUpdated).map { Int($0.timeIntervalSince1970.rounded(.down)) })
    }

    /// The departures screen: what the app showed with two requests (transport.opendata.ch, then `/api/ships`
    /// joined on the phone) it now gets in one, and every departure time reads with the app's formatter.
    func testNextWaveDeparturesNeedOneRequestAndShowWhatTwoShowedBefore() throws {
        let pier = try startPier()
        let ships = try JSONDecoder().decode(ShipsAPIResponse.self, from: Data(try waitForData(pier, "/api/ships").body))
        let today = NextWave.dateKey()
        let response = try RawClient.request(port: pier.port, "/v1/stationboard?id=8503651&date=\(today)&limit=30")
        XCTAssertEqual(response.status, 200, response.bodyText)
        let board = try JSONDecoder().decode(StationboardAPIResponse.self, from: Data(response.body))
        XCTAssertFalse(board.stationboard.isEmpty, "the app would show no departures")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        for journey in board.stationboard {
            XCTAssertEqual(journey.shipName, journey.operator == "ZSG" ? NextWave.ship(course: journey.name, on: today, in: ships) : nil, journey.name)
            let departure = try XCTUnwrap(journey.stop.departure.flatMap(formatter.date(from:)), "\(journey.stop.departure ?? "nil") does not parse")
            XCTAssertEqual(journey.stop.departureTimestamp, Int(departure.timeIntervalSince1970))
        }
        XCTAssertGreaterThan(board.stationboard.compactMap(\.shipName).count, board.stationboard.count / 2, "most departures show their ship")
        XCTAssertNotNil(response.header("etag"))
        XCTAssertEqual(response.header("cache-control")?.hasPrefix("public, max-age="), true)
    }

    func testTheFinnishWeatherAppParsesObservationTimes() throws {
        let pier = try startPier()
        struct Weather: Decodable {
            struct Current: Decodable { let observed_at: Date; let temperature: Double? }
            struct Day: Decodable { let date: String; let high: Double?; let low: Double? }
            let current: Current
            let daily_forecast: [Day]
        }
        let body = try waitForData(pier, "/v1/weather?lat=60.17&lon=24.94").body
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let weather = try decoder.decode(Weather.self, from: Data(body))
        XCTAssertLessThan(Date().timeIntervalSince(weather.current.observed_at), 3 * 3600, "an observation older than 3 h is not shown")
        let raw = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let observed = try XCTUnwrap((raw["current"] as? [String: Any])?["observed_at"] as? String)
        // Whole seconds, which the weather app's `.withInternetDateTime` formatter (and `.iso8601` above) read.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        XCTAssertNotNil(formatter.date(from: observed), observed)
        XCTAssertNotNil(observed.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression), observed)
        XCTAssertFalse(weather.daily_forecast.isEmpty)
    }

    /// Next Wave's water request uses `URLRequest.cachePolicy = .returnCacheDataElseLoad`, the other screens the
    /// default policy: both rely on Pier's `Cache-Control`, `ETag` and `Date` letting a standard HTTP cache reuse
    /// an answer within `max-age` and revalidate it afterwards (`304`, no body sent again). URLSession on Linux
    /// does not fill its `URLCache` (swift-corelibs-foundation; tried), so a standard cache outside Foundation
    /// plays the phone's: CacheControl (RFC 9111) over `requests`, installed by scripts/test.
    func testAStandardHTTPCacheReusesAndRevalidatesAnswers() throws {
        guard let python = ProcessInfo.processInfo.environment["PIER_PYTHON"] else {
            return XCTFail("PIER_PYTHON must name the tools' bin directory (scripts/test sets it)")
        }
        let pier = try startPier(["PIER_CACHE_MAX_AGE_S": "2"])
        for path in ["/api/water-temp", "/api/ships"] {
            _ = try waitForData(pier, path)
            let served = { (status: Int) throws -> Int in
                let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
                let prefix = #"http_requests_total{route="\#(path)",status="\#(status)"} "#
                return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
            }
            let (ok, notModified) = (try served(200), try served(304))
            let run = try ChildProcess.run(
                "\(python)/python", [ChildProcess.repositoryRoot.appendingPathComponent("scripts/lib/http_cache_check.py").path,
                                     "http://127.0.0.1:\(pier.port)\(path)", "2.5"])
            XCTAssertEqual(run.status, 0, run.output)
            struct Step: Decodable { let step: String; let status: Int; let from_cache: Bool; let body_sha1: String }
            let steps = try run.output.split(separator: "\n").filter { $0.hasPrefix("{") }.map { try JSONDecoder().decode(Step.self, from: Data($0.utf8)) }
            XCTAssertEqual(steps.map(\.step), ["first", "within-max-age", "after-max-age"], run.output)
            XCTAssertEqual(steps.map(\.status), [200, 200, 200], "the app always gets the whole answer")
            XCTAssertEqual(steps.map(\.from_cache), [false, true, true], "reused within max-age, revalidated after it")
            XCTAssertEqual(Set(steps.map(\.body_sha1)).count, 1)
            // Pier was asked twice: the first time (200, the body) and once to revalidate (304, no body).
            XCTAssertEqual(try served(200), ok + 1, path)
            XCTAssertEqual(try served(304), notModified + 1, path)
        }
    }
}
