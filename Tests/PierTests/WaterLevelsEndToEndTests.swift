import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// `/v1/water-levels` and `pier import water-levels` through the real binary, PostgreSQL and the local MeteoNews.
final class WaterLevelsEndToEndTests: EndToEndTestCase {
    /// `WaterLevelHistoryAPI.WaterLevelPoint` as the Next Wave app decodes it.
    struct Point: Decodable, Equatable {
        let date: String
        let level_m: Double
    }

    private func today(plus days: Int = 0) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Zurich")!
        let day = calendar.date(byAdding: .day, value: days, to: Date())!
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    private func importCSV(_ text: String) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pier-levels-\(UUID().uuidString).csv")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ChildProcess.run(PierProcess.binary.path, ["import", "water-levels", file.path], environment: [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory, "LOG_LEVEL": "error",
        ])
    }

    private func levels(_ pier: PierProcess, _ query: String) throws -> [Point] {
        let response = try RawClient.request(port: pier.port, "/v1/water-levels?\(query)")
        XCTAssertEqual(response.status, 200, response.bodyText)
        return try JSONDecoder().decode([Point].self, from: Data(response.body))
    }

    func testTheHistoryIsServedFromEveryScrapeAndTheAppsTableCanBeImported() throws {
        let pier = try startPier(["PIER_FETCH": "on"])
        _ = try waitForData(pier, "/api/water-temp")
        // Today's reading of the scrape, under MeteoNews' name and the app's, any case.
        let zurich = try levels(pier, "lake=Z%C3%BCrichsee")
        XCTAssertEqual(zurich, [Point(date: today(), level_m: 405.98)])
        let thun = try levels(pier, "lake=THUNERSEE&days=40")
        XCTAssertEqual(thun, [Point(date: today(), level_m: 557.72)])
        // The fixture's table shows no level for Genfersee: a known lake without history is an empty list.
        XCTAssertEqual(try levels(pier, "lake=lac%20l%C3%A9man&days=40"), [])
        XCTAssertEqual(try levels(pier, "lake=genfersee"), [])
        let first = try RawClient.request(port: pier.port, "/v1/water-levels?lake=Z%C3%BCrichsee")
        XCTAssertEqual(first.header("cache-control"), "public, max-age=300")
        let tag = try XCTUnwrap(first.header("etag"))
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/water-levels?lake=Z%C3%BCrichsee", headers: [("If-None-Match", tag)]).status, 304)
        // Bad requests.
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/water-levels?lake=Atlantis").status, 404)
        for bad in ["lake=", "lake=Z%C3%BCrichsee&days=0", "lake=Z%C3%BCrichsee&days=367", "lake=Z%C3%BCrichsee&days=abc", ""] {
            let response = try RawClient.request(port: pier.port, "/v1/water-levels?\(bad)")
            XCTAssertEqual(response.status, 400, bad)
            XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], bad)
        }
        // /health is encoded at most once a second: a body made in the second the scrape landed may predate its history.
        var health = ""
        XCTAssertTrue(try eventually(within: 3) {
            health = try RawClient.request(port: pier.port, "/health").bodyText
            return health.contains(#""newest_day":"\#(today())"}"#)
        }, health)

        // The app's own table, exported: the app's names, quotes, CRLF, a column more; today's row never replaces Pier's.
        let csv = "id,lake_name,date,level_m\r\n"
            + "1,Zürichsee,\(today(plus: -2)),405.91\r\n"
            + "2,\"Zürichsee\",\(today(plus: -1)),405.95\r\n"
            + "3,Lac Léman,\(today(plus: -1)),372.10\r\n"
            + "4,zürichsee,\(today()),999.99\r\n"
        let imported = try importCSV(csv)
        XCTAssertEqual(imported.status, 0, imported.output)
        XCTAssertTrue(imported.output.contains("imported 3 of 4 rows for 2 lakes (1 days Pier scraped itself were kept)"), imported.output)
        // The running server hears of it (PostgreSQL's notification) and serves the history in order.
        let deadline = Date().addingTimeInterval(10)
        var history: [Point] = []
        while Date() < deadline {
            history = try levels(pier, "lake=Z%C3%BCrichsee&days=40")
            if history.count == 3 { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        XCTAssertEqual(history, [
            Point(date: today(plus: -2), level_m: 405.91), Point(date: today(plus: -1), level_m: 405.95), Point(date: today(), level_m: 405.98),
        ])
        XCTAssertEqual(try levels(pier, "lake=Z%C3%BCrichsee&days=2").map(\.date), [today(plus: -1), today()], "at most `days` days ending today")
        XCTAssertEqual(try levels(pier, "lake=Genfersee").first, Point(date: today(plus: -1), level_m: 372.10))

        // A file with bad rows is reported line by line and imports nothing.
        let bad = "lake_name,date,level_m\n" + "Zürichsee,\(today(plus: -5)),405.90\n" + "Zürichsee,2026-13-01,405.90\n"
            + "Atlantis,\(today(plus: -5)),405.90\n" + "Bodensee,\(today(plus: -5)),abc\n" + "\"Thunersee,\(today(plus: -5)),557.7\n"
        let refused = try importCSV(bad)
        XCTAssertEqual(refused.status, 1)
        for line in ["line 3: date", "line 4: no lake named Atlantis", "line 5: level_m", "line 6: a quoted field is not closed", "nothing imported"] {
            XCTAssertTrue(refused.output.contains(line), "\(line): \(refused.output)")
        }
        XCTAssertEqual(try levels(pier, "lake=Z%C3%BCrichsee&days=40").count, 3, "the good row of the bad file was not imported")
        health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertFalse(health.contains("Atlantis"))
        XCTAssertEqual(pier.stop(), 0)
    }
}
