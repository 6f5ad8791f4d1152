import DatabaseTesting
import Foundation
import HTTPTesting
import Postgres
import UpstreamTesting
import XCTest

/// `pier serve --demo` (the bundled recordings, offline), `--save` captures and `--replay`, through the binary.
final class DemoAndCaptureTests: EndToEndTestCase {
    private var scratch: URL!

    /// The demo must leave the live database as it found it: empty.
    override class var startsMigrated: Bool { false }

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pier-capture-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
        super.tearDown()
    }

    private var demoDirectory: String { ChildProcess.repositoryRoot.appendingPathComponent("Demo").path }

    /// `pier fetch SOURCE --once` with `arguments`; returns the exit status and what it printed.
    private func fetch(_ source: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        var env = [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory, "LOG_LEVEL": "error",
            "PIER_ZSG_URL": upstream.zsgURL, "PIER_METEONEWS_URL": upstream.meteoNewsURL, "PIER_FMI_URL": upstream.fmiURL,
            "PIER_ZSG_PAUSE_S": "0", "PIER_UPSTREAM_TIMEOUT_S": "2",
        ]
        env.merge(environment) { $1 }
        return try ChildProcess.run(PierProcess.binary.path, ["fetch", source, "--once"] + arguments, environment: env)
    }

    func testTheDemoServesEveryRouteOfflineAndNeverTouchesTheLiveDatabase() throws {
        // Upstream URLs configured for the live service (an operator's .env): the demo replaces them with the
        // recordings' own, and needs none of them.
        let pier = try PierProcess(
            arguments: ["serve", "--demo"], database: database,
            environment: [
                "PIER_DEMO_DIR": demoDirectory, "LOG_LEVEL": "warning", "PIER_FETCH_JITTER_S": "0", "PIER_FETCH_TICK_S": "0.5",
                "PIER_REFRESH_TOKEN": "demo-token", "PIER_ZSG_PAUSE_S": "0", "PIER_ALPLAKES_PAUSE_S": "0",
                "PIER_ZSG_URL": "http://127.0.0.1:9/zsg/schiffeinsatz", "PIER_METEONEWS_URL": "http://127.0.0.1:9/meteonews",
                "PIER_FMI_URL": "http://127.0.0.1:9/wfs", "PIER_TRANSPORT_URL": "http://127.0.0.1:9/transport/v1",
            ])
        XCTAssertTrue(pier.waitUntilServing())
        let deadline = Date().addingTimeInterval(30)
        var answers: [String: RawResponse] = [:]
        for path in [
            "/api/ships", "/api/water-temp", "/v1/weather?lat=60.17&lon=24.94", "/v1/weather?lat=65.01&lon=25.47", "/v1/water-levels?lake=Z%C3%BCrichsee",
            "/v1/warnings?lat=60.17&lon=24.94",
        ] {
            var response = try RawClient.request(port: pier.port, path)
            while response.status != 200, Date() < deadline {
                usleep(100_000)
                response = try RawClient.request(port: pier.port, path)
            }
            XCTAssertEqual(response.status, 200, "\(path): \(response.bodyText)")
            XCTAssertEqual(response.header("X-Pier-Demo"), "true", path)
            answers[path] = response
        }
        let ships = try JSONDecoder().decode(ShipsAPIResponse.self, from: Data(try XCTUnwrap(answers["/api/ships"]).body))
        XCTAssertEqual(ships.debug.daysProcessed, 7)
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "Europe/Zurich")!, formatOptions: [.withFullDate])
        XCTAssertEqual(ships.debug.firstDay, today, "the recorded week moved to this week")
        XCTAssertTrue(ships.dailyDeployments.allSatisfy { !$0.routes.isEmpty })
        // The departures of every demo day carry the ships of that day (the recorded boards match the pages).
        for day in ships.dailyDeployments {
            let response = try RawClient.request(port: pier.port, "/v1/stationboard?id=8503651&date=\(day.date)&limit=30")
            XCTAssertEqual(response.status, 200, "\(day.date): \(response.bodyText)")
            XCTAssertEqual(response.header("X-Pier-Demo"), "true")
            let board = try JSONDecoder().decode(StationboardAPIResponse.self, from: Data(response.body))
            XCTAssertTrue(board.stationboard.allSatisfy { $0.stop.departure?.hasPrefix(day.date) == true || $0.name.hasPrefix("0090") }, day.date)
            let named = board.stationboard.compactMap(\.shipName)
            XCTAssertGreaterThanOrEqual(named.count, day.routes.count - 5, day.date)
            XCTAssertTrue(Set(named).isSubset(of: Set(day.routes.map(\.shipName))), day.date)
        }
        // The demo's level history: 39 days of Demo/lake-levels moved to end yesterday, and today's recorded table.
        struct Level: Decodable { let date: String; let level_m: Double }
        let levels = try JSONDecoder().decode([Level].self, from: Data(try XCTUnwrap(answers["/v1/water-levels?lake=Z%C3%BCrichsee"]).body))
        XCTAssertEqual(levels.count, 40)
        XCTAssertEqual(levels.last?.level_m, 405.98)
        let lakes = try JSONDecoder().decode(WaterTemperatureAPIResponse.self, from: Data(try XCTUnwrap(answers["/api/water-temp"]).body))
        XCTAssertEqual(lakes.lakes.count, 34, "MeteoNews' 32 and the Next Wave app's names for two of them")
        let weather = try JSONDecoder().decode(
            WeatherEndToEndTests.WeatherAPIResponse.self, from: Data(try XCTUnwrap(answers["/v1/weather?lat=60.17&lon=24.94"]).body))
        XCTAssertGreaterThanOrEqual(weather.daily_forecast.count, 9)
        XCTAssertEqual(weather.daily_forecast.first?.date, ISO8601DateFormatter.string(
            from: Date(), timeZone: TimeZone(identifier: "Europe/Helsinki")!, formatOptions: [.withFullDate]))
        let observed = try XCTUnwrap(ISO8601DateFormatter().date(from: weather.current.observed_at))
        XCTAssertLessThan(Date().timeIntervalSince(observed), 3 * 3600, "observations moved to the current hour")
        // A warning over Helsinki: the recorded publication moved to now, in force.
        let warnings = try JSONDecoder().decode(
            WarningsEndToEndTests.Warnings.self, from: Data(try XCTUnwrap(answers["/v1/warnings?lat=60.17&lon=24.94"]).body))
        XCTAssertEqual(warnings.warnings.map(\.color), ["orange", "yellow"])
        let expires = try XCTUnwrap(ISO8601DateFormatter().date(from: try XCTUnwrap(warnings.warnings.first?.expires)))
        XCTAssertGreaterThan(expires, Date())

        // Next Wave's lake weather (no key in the demo), lake temperatures (all 27 lakes), sun times.
        let forecast = try RawClient.request(port: pier.port, "/v1/lake-weather?lat=47.37&lon=8.54")
        XCTAssertEqual(forecast.status, 200, forecast.bodyText)
        XCTAssertEqual(forecast.header("X-Pier-Demo"), "true")
        let slots = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(forecast.body)) as? [String: Any])?["list"] as? [[String: Any]])
        let first = try XCTUnwrap(slots.first?["dt"] as? Int)
        XCTAssertLessThan(abs(Double(first) - Date().timeIntervalSince1970), 3 * 3600, "the recorded forecast moved to now")
        var temperatures = try RawClient.request(port: pier.port, "/v1/lake-temperatures")
        var lakeCount = 0
        while Date() < deadline.addingTimeInterval(30) {
            temperatures = try RawClient.request(port: pier.port, "/v1/lake-temperatures")
            lakeCount = ((try? JSONSerialization.jsonObject(with: Data(temperatures.body)) as? [String: Any])?["lakes"] as? [Any])?.count ?? 0
            if lakeCount == 27 { break }
            usleep(200_000)
        }
        XCTAssertEqual(lakeCount, 27, temperatures.bodyText)
        let lakeList = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(temperatures.body)) as? [String: Any])?["lakes"] as? [[String: Any]])
        XCTAssertTrue(lakeList.allSatisfy { (($0["forecast"] as? [Any])?.count ?? 0) >= 14 }, "48 hours of forecast from now")
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/sun?lat=47.37&lon=8.54").status, 200)
        // ShipTrip's import: the made-up booking's recorded answer, offline, its ports placed by the recorded geocoder.
        let imported = try RawClient(port: pier.port).request(
            "POST", "/v1/cruise-import", headers: [("Content-Type", "application/json")], body: Array(#"{"text":"Buchungsbestätigung MS Donauperle"}"#.utf8))
        XCTAssertEqual(imported.status, 200, imported.bodyText)
        XCTAssertEqual(imported.header("X-Pier-Demo"), "true")
        let ports = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(imported.body)) as? [String: Any])?["ports"] as? [[String: Any]])
        XCTAssertEqual(ports.compactMap { $0["latitude"] as? Double }, [48.5667, 49.0134, 48.917, 49.4539])

        // Sydney departures (no key in the demo): the recorded stops moved to now; any other stop is unknown.
        let departures = try RawClient.request(port: pier.port, "/v1/nsw/departures?stop=G203519&mode=bus")
        XCTAssertEqual(departures.status, 200, departures.bodyText)
        XCTAssertEqual(departures.header("X-Pier-Demo"), "true")
        let events = try JSONDecoder().decode(AppDepartures.self, from: Data(departures.body)).stopEvents
        XCTAssertGreaterThanOrEqual(events.count, 20)
        let next = try XCTUnwrap(events.first?.departure)
        XCTAssertTrue((0...300).contains(next.timeIntervalSinceNow), "the recorded departures moved to now: \(next)")
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/nsw/departures?stop=203294").status, 200)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/nsw/departures?stop=X1").status, 404)

        // Places, geocoding and Wikipedia (no Geoapify key in the demo): Nürnberg's recordings.
        let city = try RawClient.request(port: pier.port, "/v1/geocode?text=N%C3%BCrnberg&lang=de")
        XCTAssertEqual(city.status, 200, city.bodyText)
        let point = try XCTUnwrap(try JSONDecoder().decode(AppPlaces.self, from: Data(city.body)).features.first?.geometry.coordinates)
        XCTAssertEqual(try JSONDecoder().decode(AppPlaces.self, from: Data(try RawClient.request(port: pier.port, "/v1/geocode?text=Atlantis").body)).features.count, 0)
        let places = try RawClient.request(
            port: pier.port, "/v1/places?categories=tourism.attraction,entertainment.museum,leisure.park&filter=circle:\(point[0]),\(point[1]),5000")
        XCTAssertEqual(places.header("X-Pier-Demo"), "true")
        XCTAssertEqual(try JSONDecoder().decode(AppPlaces.self, from: Data(places.body)).features.count, 14)
        let summary = try RawClient.request(port: pier.port, "/v1/wikipedia/de/summary/Sch%C3%B6ner%20Brunnen")
        XCTAssertEqual(try JSONDecoder().decode(AppWikipediaSummary.self, from: Data(summary.body)).title, "Schöner Brunnen")
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/wikipedia/de/summary/Atlantis").status, 404)
        let search = try RawClient.request(port: pier.port, "/v1/wikipedia/de/opensearch?search=Sch%C3%B6ner%20Brunnen%20N%C3%BCrnberg&limit=5")
        XCTAssertEqual(((try JSONSerialization.jsonObject(with: Data(search.body)) as? [Any])?[1] as? [String])?.first, "Schöner Brunnen")

        // Next Wave's community, on in the demo with its well-known secret: the seeded riders' leaderboard from the
        // public key's sign-up, and this evening's check-ins counted.
        let key = NextWaveEndToEndTests.anonKey(secret: "pier-demo-jwt-secret-never-use-it-in-production")
        let apikey = [("apikey", key), ("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")]
        let signup = try RawClient(port: pier.port).request("POST", "/auth/v1/signup", headers: apikey, body: Array("{}".utf8))
        XCTAssertEqual(signup.status, 200, signup.bodyText)
        let access = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(signup.body)) as? [String: Any])?["access_token"] as? String)
        let board = try RawClient(port: pier.port).request(
            "POST", "/rest/v1/rpc/wave_leaderboard", headers: [("apikey", key), ("Authorization", "Bearer \(access)"), ("Content-Type", "application/json")],
            body: Array(#"{"p_limit":50}"#.utf8))
        let riders = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(board.body)) as? [[String: Any]], board.bodyText)
        XCTAssertEqual(riders.first?["display_name"] as? String, "Lisa")
        XCTAssertEqual(riders.first?["total_waves"] as? Int, 64)
        XCTAssertEqual(riders.last?["display_name"] as? String, "You", "the visitor, not ranked yet")
        XCTAssertEqual(riders.count, 7)

        let health = try RawClient.request(port: pier.port, "/health")
        XCTAssertEqual(health.header("X-Pier-Demo"), "true")
        XCTAssertTrue(health.bodyText.contains(#""nextwave":{"state":"on""#), health.bodyText)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])
        XCTAssertEqual(report["mode"] as? String, "demo")
        XCTAssertEqual(try RawClient.request(port: pier.port, "/nowhere").header("X-Pier-Demo"), "true", "errors too")
        // A refresh runs against the recordings as well.
        let refresh = try RawClient.request(
            port: pier.port, "/api/ships/refresh", method: "POST", headers: [("Authorization", "Bearer demo-token")])
        XCTAssertEqual(refresh.status, 200, refresh.bodyText)
        XCTAssertEqual(try JSONDecoder().decode(RefreshAPIResponse.self, from: Data(refresh.body)).daysProcessed, 7)
        XCTAssertEqual(refresh.header("X-Pier-Demo"), "true")
        XCTAssertEqual(pier.stop(), 0)

        // Everything went into <name>_demo; the live database was not even migrated.
        let live = try database.connection()
        XCTAssertEqual(try live.query("SELECT to_regclass('ship_days') IS NULL AS absent")[0].decode(Bool.self, "absent"), true)
        let demo = try PostgresConnection(url: try TestDatabase.serverURL(), database: database.name + "_demo")
        XCTAssertEqual(try demo.query("SELECT count(*) AS n FROM ship_days")[0].decode(Int.self, "n"), 7)
        XCTAssertEqual(upstream.requests(.zsg).count + upstream.requests(.meteonews).count + upstream.requests(.fmi).count, 0)
    }

    func testASavedCaptureOfAFailedRunReplaysToTheSameOutcome() throws {
        upstream.set(.zsg, .changed)
        let failed = try fetch("ships", ["--save", scratch.path])
        XCTAssertNotEqual(failed.status, 0)
        XCTAssertTrue(failed.output.contains("suspect"), failed.output)
        let run = try JSONSerialization.jsonObject(with: Data(contentsOf: scratch.appendingPathComponent("run.json"))) as? [String: Any]
        XCTAssertEqual(run?["outcome"] as? String, "suspect")
        XCTAssertEqual(run?["exchanges"] as? Int, 7)
        let first = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: scratch.appendingPathComponent("001.json"))) as? [String: Any])
        XCTAssertEqual(first["status"] as? Int, 200)
        XCTAssertTrue((first["url"] as? String)?.hasPrefix(upstream.zsgURL + "?timestamp=") ?? false, "\(first)")
        XCTAssertNotNil(first["receivedAt"] as? String)
        let body = try String(contentsOf: scratch.appendingPathComponent("001.body"), encoding: .utf8)
        XCTAssertTrue(body.contains("new-layout"), "the bytes the upstream sent")
        XCTAssertEqual(upstream.requests(.zsg).count, 7)

        // The upstream is gone; the capture stands in for it and the run fails the same way.
        upstream.stop()
        let replayed = try fetch("ships", ["--replay", scratch.path])
        XCTAssertNotEqual(replayed.status, 0)
        XCTAssertEqual(
            replayed.output.split(separator: "\n").last { $0.hasPrefix("ships:") }, failed.output.split(separator: "\n").last { $0.hasPrefix("ships:") },
            replayed.output)
    }

    func testAGoodCaptureReplaysAsAGoodRun() throws {
        XCTAssertEqual(try fetch("lakes", ["--save", scratch.path]).status, 0)
        upstream.stop()
        let replayed = try fetch("lakes", ["--replay", scratch.path])
        XCTAssertEqual(replayed.status, 0, replayed.output)
        XCTAssertTrue(replayed.output.contains("lakes: stored 32 items"), replayed.output)
    }

    func testTheSchedulerKeepsTheAnswersOfFailedRunsBounded() throws {
        upstream.set(.meteonews, .garbage)
        let environment = ["PIER_SAVE_SUSPECT_DIR": scratch.path, "PIER_SAVE_SUSPECT_KEEP": "2"]
        for _ in 0..<4 { XCTAssertNotEqual(try fetch("lakes", [], environment: environment).status, 0) }
        let folders = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix("lakes-") }
        XCTAssertEqual(folders.count, 2, "the newest two of four failed runs: \(folders)")

        let pier = try startPier(environment.merging(["PIER_SAVE_SUSPECT_KEEP": "5"]) { $1 })
        let deadline = Date().addingTimeInterval(20)
        var capture: String?
        while capture == nil, Date() < deadline {
            let health = try JSONSerialization.jsonObject(with: Data(try RawClient.request(port: pier.port, "/health").body)) as? [String: Any]
            capture = ((health?["sources"] as? [String: Any])?["lakes"] as? [String: Any])?["last_capture"] as? String
            if capture == nil { usleep(100_000) }
        }
        let folder = try XCTUnwrap(capture, "/health names the last capture")
        XCTAssertTrue(folder.hasPrefix(scratch.path + "/lakes-"), folder)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/001.body"))
        XCTAssertEqual(pier.stop(), 0)
    }
}

/// What a feature brings besides routes and jobs reaches the executable through the features list alone.
final class FeatureBroughtTests: XCTestCase {
    /// `pier bench-parse` times every parser a feature lists, and each has its fuzz target of the same name.
    func testEveryParserAFeatureBringsIsTimedAndFuzzed() throws {
        let listed = try ChildProcess.run(PierProcess.binary.path, ["bench-parse", "--list"])
        XCTAssertEqual(listed.status, 0, listed.output)
        let parsers = listed.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            Set(parsers), ["zsg", "meteonews", "fmi", "metno", "cap", "transport", "openweather", "alplakes", "nsw", "places"], listed.output)
        for parser in parsers {
            let conf = ChildProcess.repositoryRoot.appendingPathComponent("fuzz/targets/\(parser)/target.conf").path
            XCTAssertTrue(FileManager.default.fileExists(atPath: conf), "\(parser) has no fuzz target (fuzz/targets/\(parser))")
        }
    }

    /// The features' own subcommands are the executable's: Lakes' `import`, App Attest's `app-attest`.
    func testTheFeaturesCommandsAreSubcommands() throws {
        let help = try ChildProcess.run(PierProcess.binary.path, ["--help"])
        for command in ["import", "app-attest", "serve", "fetch"] {
            XCTAssertTrue(help.output.contains("  \(command)"), "\(command): \(help.output)")
        }
        let outside = try ChildProcess.run(PierProcess.binary.path, ["import", "water-levels", "/nonexistent.csv"], environment: ["DATABASE_URL": ""])
        XCTAssertNotEqual(outside.status, 0)
        XCTAssertTrue(outside.output.contains("cannot read /nonexistent.csv"), outside.output)
    }
}
