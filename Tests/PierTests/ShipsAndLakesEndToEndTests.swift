import DatabaseTesting
import Foundation
import HTTPTesting
import Parsing
import Postgres
import ShipsFormat
import Synchronization
import UpstreamTesting
import XCTest

/// The real `pier` binary, a real PostgreSQL and a local upstream serving the fixture pages: scrapes run
/// through the real HTTP client, parser, drift checks, store and cache, and come out of the real routes.
final class ShipsAndLakesEndToEndTests: EndToEndTestCase {
    private func health(_ pier: PierProcess) throws -> [String: Any] {
        let response = try RawClient.request(port: pier.port, "/health")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    private func source(_ name: String, in health: [String: Any]) -> [String: Any] {
        ((health["sources"] as? [String: Any])?[name] as? [String: Any]) ?? [:]
    }

    /// `name`'s object in `/health` once its status is `status`: a run's data is served a moment before the run
    /// is recorded as finished (the store, then `fetch_runs`, then the board).
    private func source(_ name: String, of pier: PierProcess, reaching status: String, within seconds: Double = 5) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        var current = source(name, in: try health(pier))
        while current["status"] as? String != status, Date() < deadline {
            usleep(20_000)
            current = source(name, in: try health(pier))
        }
        return current
    }

    private func refresh(_ pier: PierProcess, token: String? = "s3cret-token", path: String = "/api/ships/refresh") throws -> RawResponse {
        try RawClient.request(port: pier.port, path, method: "POST", headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    /// What the fixture upstream serves for `date`, as its expected parse result.
    private func expectedRoutes(for date: CalendarDate) throws -> [ShipsAPIResponse.ShipRoute] {
        struct Page: Decodable { let routes: [ShipsAPIResponse.ShipRoute] }
        let pages = try Fixtures.pages("zsg")
        let day = Int(date.noonUTC.timeIntervalSince1970 * 1000) / 86_400_000
        return try JSONDecoder().decode(Page.self, from: pages[day % pages.count].expected).routes
    }

    private var today: CalendarDate {
        CalendarDate(Date(), in: TimeZone(identifier: "Europe/Zurich") ?? .current)
    }

    func testScrapedShipsMatchTheContractFieldByField() throws {
        let pier = try startPier()
        let response = try waitForData(pier, "/api/ships")
        XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual(response.header("Access-Control-Allow-Origin"), "*")
        XCTAssertEqual(response.header("Cache-Control"), "public, max-age=300")
        let etag = try XCTUnwrap(response.header("ETag"))

        let ships = try JSONDecoder().decode(ShipsAPIResponse.self, from: Data(response.body))
        XCTAssertEqual(ships.debug.daysProcessed, 7)
        XCTAssertEqual(ships.debug.firstDay, today.description)
        XCTAssertEqual(ships.debug.lastDay, today.adding(days: 6).description)
        XCTAssertEqual(ships.dailyDeployments.map(\.date), (0..<7).map { today.adding(days: $0).description })
        for day in ships.dailyDeployments {
            XCTAssertEqual(day.routes, try expectedRoutes(for: try XCTUnwrap(CalendarDate(day.date))), day.date)
        }
        XCTAssertNotNil(ships.lastUpdated.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression), ships.lastUpdated)
        let appFormatter = ISO8601DateFormatter()
        appFormatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        XCTAssertNotNil(appFormatter.date(from: ships.lastUpdated), "the app's formatter parses it (toISOString(): milliseconds)")

        // How ZSG was asked: one request per date, by timestamp at 12:00 UTC, with the page script's headers.
        let requests = upstream.requests(.zsg)
        XCTAssertEqual(requests.count, 7)
        XCTAssertEqual(requests.map { $0.query["timestamp"] }, (0..<7).map { String(Int64(today.adding(days: $0).noonUTC.timeIntervalSince1970) * 1000) })
        XCTAssertTrue(requests.allSatisfy { $0.query["date"] == nil })
        XCTAssertEqual(requests.first?.headers["x-requested-with"], "XMLHttpRequest")
        XCTAssertEqual(requests.first?.headers["referer"], "https://einsatzderschiffe.zsg.ch/")

        // The alias, conditional requests, HEAD, one day, bad input.
        let alias = try RawClient.request(port: pier.port, "/ships")
        XCTAssertEqual(alias.body, response.body)
        let notModified = try RawClient.request(port: pier.port, "/api/ships", headers: [("If-None-Match", etag)])
        XCTAssertEqual(notModified.status, 304)
        XCTAssertEqual(notModified.header("ETag"), etag)
        XCTAssertTrue(notModified.body.isEmpty)
        XCTAssertEqual(try RawClient.request(port: pier.port, "/api/ships", headers: [("If-None-Match", "\"other\"")]).status, 200)
        let head = try RawClient.request(port: pier.port, "/api/ships", method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), String(response.body.count))
        XCTAssertEqual(head.header("ETag"), etag)

        let tomorrow = today.adding(days: 1).description
        let one = try RawClient.request(port: pier.port, "/api/ships?date=\(tomorrow)")
        let oneDay = try JSONDecoder().decode(ShipsAPIResponse.self, from: Data(one.body))
        XCTAssertEqual(oneDay.dailyDeployments.map(\.date), [tomorrow])
        XCTAssertEqual(oneDay.debug.firstDay, tomorrow)
        XCTAssertEqual(oneDay.debug.daysProcessed, 1)
        for bad in ["2026-13-01", "tomorrow", "2026-02-30", "26-11-23", ""] {
            let answer = try RawClient.request(port: pier.port, "/api/ships?date=\(bad)")
            XCTAssertEqual(answer.status, 400, bad)
            XCTAssertFalse(try JSONDecoder().decode(ErrorAPIResponse.self, from: Data(answer.body)).error.isEmpty)
        }
        XCTAssertEqual(try RawClient.request(port: pier.port, "/api/ships?date=\(today.adding(days: 30))").status, 404)
        let wrongMethod = try RawClient.request(port: pier.port, "/api/ships", method: "DELETE")
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.header("Allow"), "GET, HEAD, OPTIONS")
        let preflight = try RawClient.request(port: pier.port, "/api/ships/refresh", method: "OPTIONS")
        XCTAssertEqual(preflight.status, 204)
        XCTAssertTrue(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") ?? false)

        // The run is counted when the runner has written it to `fetch_runs`, a moment after its data is served.
        var metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        let counted = Date().addingTimeInterval(5)
        while !metrics.contains(#"pier_fetch_runs_total{source="ships",outcome="ok"} 1"#), Date() < counted {
            usleep(20_000)
            metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        }
        XCTAssertTrue(metrics.contains(#"pier_fetch_runs_total{source="ships",outcome="ok"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_cache_requests_total{cache="ships",result="hit"}"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_fetch_last_success_timestamp_seconds{source="ships"}"#), metrics)

        let ships200 = try source("ships", of: pier, reaching: "ok")
        XCTAssertEqual(ships200["status"] as? String, "ok")
        XCTAssertNotNil(ships200["last_success"] as? String)
        XCTAssertTrue(ships200["last_error"] is NSNull)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testScrapedLakesMatchTheContractFieldByField() throws {
        let pier = try startPier()
        let response = try waitForData(pier, "/api/water-temp")
        let lakes = try JSONDecoder().decode(WaterTemperatureAPIResponse.self, from: Data(response.body))
        struct Expected: Decodable { let lakes: [WaterTemperatureAPIResponse.Lake] }
        let expected = try JSONDecoder().decode(
            Expected.self, from: Data(Fixtures.bytes("meteonews", "seen-in-der-schweiz.2026-07-04.expected.json")))
        // MeteoNews' lakes as the parser reads them, then the Next Wave app's names for two of them (same readings).
        XCTAssertEqual(Array(lakes.lakes.prefix(expected.lakes.count)), expected.lakes)
        let genfersee = try XCTUnwrap(expected.lakes.first { $0.name == "Genfersee" }), lugano = try XCTUnwrap(expected.lakes.first { $0.name == "Luganersee" })
        XCTAssertEqual(Array(lakes.lakes.dropFirst(expected.lakes.count)), [
            WaterTemperatureAPIResponse.Lake(name: "Lac Léman", temperature: genfersee.temperature, waterLevel: genfersee.waterLevel),
            WaterTemperatureAPIResponse.Lake(name: "Lago di Lugano", temperature: lugano.temperature, waterLevel: lugano.waterLevel),
        ])
        XCTAssertEqual(lakes.debug.lakesCount, expected.lakes.count + 2)
        XCTAssertNotNil(lakes.debug.currentSwissTime.range(of: #"^\d\d\.\d\d\.\d{4}, \d\d:\d\d:\d\d$"#, options: .regularExpression))
        // Missing values are explicit nulls, as the contract shows.
        XCTAssertTrue(response.bodyText.contains(#""temperature":null"#), response.bodyText)
        XCTAssertTrue(response.bodyText.contains(#""waterLevel":null"#))
        XCTAssertEqual(try RawClient.request(port: pier.port, "/api/water-temperature").body, response.body)
        let etag = try XCTUnwrap(response.header("ETag"))
        XCTAssertEqual(try RawClient.request(port: pier.port, "/api/water-temp", headers: [("If-None-Match", "W/\(etag)")]).status, 304)

        let request = try XCTUnwrap(upstream.requests(.meteonews).first)
        XCTAssertTrue(request.headers["accept-language"]?.hasPrefix("de") ?? false)
        XCTAssertTrue(request.headers["user-agent"]?.contains("Mozilla") ?? false)
        XCTAssertEqual(try source("lakes", of: pier, reaching: "ok")["status"] as? String, "ok")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testBeforeAnyDataTheRoutesAnswer503WithRetryAfter() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        let ships = try RawClient.request(port: pier.port, "/api/ships")
        XCTAssertEqual(ships.status, 503)
        XCTAssertNotNil(ships.header("Retry-After"))
        XCTAssertEqual(try JSONDecoder().decode(ErrorAPIResponse.self, from: Data(ships.body)).error, "no ship data yet")
        let lakes = try RawClient.request(port: pier.port, "/api/water-temp")
        XCTAssertEqual(lakes.status, 503)
        XCTAssertEqual(try JSONDecoder().decode(ErrorAPIResponse.self, from: Data(lakes.body)).error, "no lake data yet")
        XCTAssertEqual(lakes.header("Access-Control-Allow-Origin"), "*")
        XCTAssertTrue(upstream.requests(.zsg).isEmpty, "PIER_FETCH=off never scrapes")
        XCTAssertEqual(source("ships", in: try health(pier))["status"] as? String, "stale")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testRefreshRouteTokenHandling() throws {
        let open = try startPier(["PIER_FETCH": "off", "PIER_REFRESH_TOKEN": ""])
        let forbidden = try refresh(open, token: "anything")
        XCTAssertEqual(forbidden.status, 403)
        XCTAssertFalse(try JSONDecoder().decode(ErrorAPIResponse.self, from: Data(forbidden.body)).error.isEmpty)
        XCTAssertEqual(open.stop(), 0)

        let pier = try startPier(["PIER_FETCH": "off"])
        for token in [nil, "wrong", "s3cret-toke", "s3cret-token-", ""] as [String?] {
            let denied = try refresh(pier, token: token)
            XCTAssertEqual(denied.status, 401, token ?? "no header")
            XCTAssertEqual(denied.header("WWW-Authenticate"), "Bearer")
        }
        let basic = try RawClient.request(port: pier.port, "/ships/refresh", method: "POST", headers: [("Authorization", "Basic czNjcmV0LXRva2Vu")])
        XCTAssertEqual(basic.status, 401)
        XCTAssertTrue(upstream.requests(.zsg).isEmpty, "no scrape without a valid token")

        let ok = try refresh(pier, path: "/ships/refresh")
        XCTAssertEqual(ok.status, 200, ok.bodyText)
        let body = try JSONDecoder().decode(RefreshAPIResponse.self, from: Data(ok.body))
        XCTAssertEqual(body.daysProcessed, 7)
        let served = try JSONDecoder().decode(ShipsAPIResponse.self, from: Data(try waitForData(pier, "/api/ships").body))
        XCTAssertEqual(body.routes, served.dailyDeployments.reduce(0) { $0 + $1.routes.count })
        XCTAssertEqual(body.lastUpdated, served.lastUpdated)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testConcurrentRefreshesShareOneScrape() throws {
        // A pause between day requests keeps the first run in flight while the others arrive.
        let pier = try startPier(["PIER_FETCH": "off", "PIER_ZSG_PAUSE_S": "0.15"])
        let results = Mutex<[Int]>([])
        let port = pier.port
        let done = DispatchGroup()
        // Threads of their own: a dispatch queue on two cores would run the callers two at a time.
        for _ in 0..<4 {
            done.enter()
            Thread {
                let status = (try? RawClient.request(
                    port: port, "/api/ships/refresh", method: "POST", headers: [("Authorization", "Bearer s3cret-token")]).status) ?? 0
                results.withLock { $0.append(status) }
                done.leave()
            }.start()
        }
        done.wait()
        XCTAssertEqual(results.withLock { $0 }, [200, 200, 200, 200])
        XCTAssertEqual(upstream.requests(.zsg).count, 7, "four callers, one scrape of seven days")
        XCTAssertEqual(try runs(source: "ships").count, 1)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testFailingAndSuspectScrapesKeepTheServedDataAndShowInHealth() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        XCTAssertEqual(try refresh(pier).status, 200)
        let good = try waitForData(pier, "/api/ships")

        let cases: [(FixtureUpstream.Mode, String, String)] = [
            (.status(500), "500", "failed"),
            (.hang, "did not answer in time", "failed"),
            (.garbage, "not markup", "failed"),
            (.changed, "layout", "suspect"),
            (.identical, "byte-identical", "suspect"),
        ]
        for (mode, reason, outcome) in cases {
            upstream.set(.zsg, mode)
            let answer = try refresh(pier)
            XCTAssertEqual(answer.status, 502, "\(mode): \(answer.bodyText)")
            let message = try JSONDecoder().decode(ErrorAPIResponse.self, from: Data(answer.body)).error
            XCTAssertTrue(message.contains(reason), "\(mode): \(message)")
            let served = try RawClient.request(port: pier.port, "/api/ships")
            XCTAssertEqual(served.body, good.body, "\(mode): the data served before is kept")
            XCTAssertEqual(served.header("ETag"), good.header("ETag"))
            let ships = source("ships", in: try health(pier))
            XCTAssertEqual(ships["status"] as? String, "failing", "\(mode)")
            XCTAssertEqual(ships["last_outcome"] as? String, outcome, "\(mode)")
            XCTAssertTrue((ships["last_error"] as? String)?.contains(reason) ?? false, "\(mode): \(ships)")
            XCTAssertNotNil(ships["last_success"] as? String)
            XCTAssertEqual(try runs(source: "ships").last, outcome, "\(mode) recorded in fetch_runs")
        }
        XCTAssertEqual(try database.connection().query("SELECT count(*) AS n FROM ship_days")[0].decode(Int.self, "n"), 7)

        upstream.set(.zsg, .normal)
        XCTAssertEqual(try refresh(pier).status, 200)
        XCTAssertEqual(source("ships", in: try health(pier))["status"] as? String, "ok")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testTheSchedulerRetriesAFailingSourceUntilItRecovers() throws {
        upstream.set(.meteonews, .status(500))
        let pier = try startPier(["PIER_FETCH_RETRY_S": "0.2", "PIER_FETCH_RETRY_MAX_S": "0.4"])
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, try runs(source: "lakes").filter({ $0 == "failed" }).count < 3 { usleep(50_000) }
        XCTAssertGreaterThanOrEqual(try runs(source: "lakes").filter { $0 == "failed" }.count, 3, "retried with backoff")
        XCTAssertEqual(source("lakes", in: try health(pier))["status"] as? String, "failing")
        XCTAssertEqual(try RawClient.request(port: pier.port, "/api/water-temp").status, 503)

        upstream.set(.meteonews, .normal)
        _ = try waitForData(pier, "/api/water-temp")
        XCTAssertEqual(try runs(source: "lakes").last, "ok")
        XCTAssertEqual(try source("lakes", of: pier, reaching: "ok")["status"] as? String, "ok")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testFetchOnceExitStatusAndSuspectLakeTableKeepsData() throws {
        let environment = [
            "PIER_ZSG_URL": upstream.zsgURL, "PIER_METEONEWS_URL": upstream.meteoNewsURL, "PIER_ZSG_PAUSE_S": "0",
            "PIER_UPSTREAM_TIMEOUT_S": "2",
        ]
        func fetch(_ source: String) throws -> (Int32, String) {
            let process = try PierProcess(arguments: ["fetch", source, "--once"], database: database, environment: environment)
            process.process.waitUntilExit()
            return (process.process.terminationStatus, process.standardOutput())
        }
        XCTAssertEqual(try fetch("lakes").0, 0)
        XCTAssertEqual(try fetch("ships").0, 0)
        let stored = try database.connection().query("SELECT count(*) AS n FROM lake_readings")[0].decode(Int.self, "n")
        XCTAssertEqual(stored, 32)

        upstream.set(.meteonews, .truncated(rows: 5))
        let (status, output) = try fetch("lakes")
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains("fewer than half"), output)
        upstream.set(.meteonews, .status(503))
        XCTAssertNotEqual(try fetch("lakes").0, 0)
        XCTAssertEqual(try database.connection().query("SELECT count(*) AS n FROM lake_readings")[0].decode(Int.self, "n"), 32)
        XCTAssertEqual(try runs(source: "lakes"), ["ok", "suspect", "failed"])
    }

    func testRestartServesFromPostgreSQLWithTheUpstreamDown() throws {
        let first = try startPier()
        let ships = try waitForData(first, "/api/ships")
        let lakes = try waitForData(first, "/api/water-temp")
        XCTAssertEqual(first.stop(), 0)

        upstream.set(.zsg, .status(503))
        upstream.set(.meteonews, .status(503))
        let before = upstream.requests(.zsg).count
        let second = try startPier()
        let shipsAgain = try RawClient.request(port: second.port, "/api/ships")
        XCTAssertEqual(shipsAgain.status, 200, "served from PostgreSQL as soon as the server listens")
        XCTAssertEqual(shipsAgain.body, ships.body)
        XCTAssertEqual(shipsAgain.header("ETag"), ships.header("ETag"), "equal data, equal tag across processes")
        XCTAssertEqual(try RawClient.request(port: second.port, "/api/water-temp").body, lakes.body)
        usleep(500_000)
        XCTAssertEqual(upstream.requests(.zsg).count, before, "fresh data is not scraped again at start-up")
        XCTAssertEqual(second.stop(), 0)
    }

    /// Outcomes recorded in `fetch_runs` for `source`, oldest first.
    private func runs(source: String) throws -> [String] {
        try database.connection().query("SELECT outcome FROM fetch_runs WHERE source = $1 ORDER BY id", [source])
            .map { try $0.decode(String.self, "outcome") }
    }
}
