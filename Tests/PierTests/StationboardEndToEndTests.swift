import Foundation
import HTTPTesting
import Parsing
import UpstreamTesting
import XCTest

/// `GET /v1/stationboard` from the real binary: transport.opendata.ch and ZSG played by the fixture upstream.
final class StationboardEndToEndTests: EndToEndTestCase {
    private func get(_ pier: PierProcess, _ target: String, headers: [(String, String)] = []) throws -> RawResponse {
        try RawClient.request(port: pier.port, target, headers: headers)
    }

    /// Waits for the first ships scrape and returns `/api/ships`.
    private func ships(_ pier: PierProcess) throws -> ShipsAPIResponse {
        try JSONDecoder().decode(ShipsAPIResponse.self, from: Data(try waitForData(pier, "/api/ships").body))
    }

    /// The Next Wave app's own join: strip the zeros of `name`, look the course up for the date in `/api/ships`.
    private func appJoin(_ board: StationboardAPIResponse, _ ships: ShipsAPIResponse, date: String) -> [String?] {
        let routes = ships.dailyDeployments.first { $0.date == date }?.routes ?? []
        return board.stationboard.map { journey in
            guard journey.operator == "ZSG" else { return nil }
            let course = String(journey.name.drop { $0 == "0" })
            return routes.first { String($0.courseNumber.drop { $0 == "0" }) == course }?.shipName
        }
    }

    func testTheDeparturesScreenInOneRequestWithEachShip() throws {
        let pier = try startPier()
        let week = try ships(pier)
        let date = try XCTUnwrap(week.dailyDeployments.dropFirst().first?.date)
        let response = try get(pier, "/v1/stationboard?id=8503651&date=\(date)&limit=30")
        XCTAssertEqual(response.status, 200, response.bodyText)
        XCTAssertEqual(response.header("access-control-allow-origin"), "*")
        XCTAssertEqual(response.header("cache-control"), "public, max-age=1800")
        let board = try JSONDecoder().decode(StationboardAPIResponse.self, from: Data(response.body))
        XCTAssertEqual(board.station?.id, "8503651")
        XCTAssertEqual(board.stationboard.map(\.shipName), appJoin(board, week, date: date))
        XCTAssertGreaterThanOrEqual(board.stationboard.compactMap(\.shipName).count, 20)
        // The fixture's extra departures (courses no ZSG page lists, one of them another operator's) have none.
        let unnamed = board.stationboard.filter { $0.shipName == nil }.map(\.name)
        XCTAssertTrue(unnamed.contains("009000") && unnamed.allSatisfy { $0.hasPrefix("0090") }, "\(unnamed)")
        // The upstream's times, exactly: the API's "+0200" offsets, no colon.
        XCTAssertTrue(board.stationboard.allSatisfy { $0.stop.departure?.range(of: #"^2026-[0-9-]{5}T[0-9:]{8}\+0[12]00$"#, options: .regularExpression) != nil })
        XCTAssertEqual(upstream.requests(.transport).count, 1)
        XCTAssertEqual(upstream.requests(.transport).first?.query["limit"], "30")

        // Asked again (and revalidated): memory, no upstream call.
        let tag = try XCTUnwrap(response.header("etag"))
        XCTAssertEqual(try get(pier, "/v1/stationboard?id=8503651&date=\(date)&limit=30").body, response.body)
        XCTAssertEqual(try get(pier, "/v1/stationboard?id=8503651&date=\(date)&limit=30", headers: [("If-None-Match", tag)]).status, 304)
        XCTAssertEqual(upstream.requests(.transport).count, 1)

        // Next week's schedule is scraped: the same board now names the new ships, without asking the upstream.
        upstream.set(.zsg, .shifted)
        let refreshed = try RawClient.request(port: pier.port, "/api/ships/refresh", method: "POST", headers: [("Authorization", "Bearer s3cret-token")])
        XCTAssertEqual(refreshed.status, 200, refreshed.bodyText)
        let newWeek = try ships(pier)
        let after = try JSONDecoder().decode(
            StationboardAPIResponse.self, from: Data(try get(pier, "/v1/stationboard?id=8503651&date=\(date)&limit=30").body))
        XCTAssertEqual(after.stationboard.map(\.shipName), appJoin(after, newWeek, date: date))
        XCTAssertNotEqual(after.stationboard.map(\.shipName), board.stationboard.map(\.shipName))
        XCTAssertEqual(upstream.requests(.transport).count, 1)

        let health = try get(pier, "/health").bodyText
        XCTAssertTrue(health.contains(#""stationboard":{"status":"ok""#), health)
        XCTAssertTrue(health.contains(#""upstream":"reachable""#), health)
        let metrics = try get(pier, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_upstream_requests_total{upstream="transport"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_ondemand_cache_hits_total{kind="stationboard",upstream="transport"}"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_ondemand_cache_misses_total{kind="stationboard",upstream="transport"} 1"#), metrics)
    }

    /// A Zurich date `days` from today, `YYYY-MM-DD` (the fixture upstream serves a board for any date).
    private func day(_ days: Int) -> String {
        CalendarDate(Date(), in: TimeZone(identifier: "Europe/Zurich") ?? .current).adding(days: days).description
    }

    /// The shipped Next Wave app's request, byte for byte as it builds it (`TransportAPI.getStationboard` with
    /// `limit: 420`, a whole day of boats), with only the base URL changed.
    func testTheAppsWholeDayBoardRequestIsAnsweredAndPassedOn() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        let today = day(0)
        let response = try get(pier, "/v1/stationboard?id=8503651&limit=420&date=\(today)")
        XCTAssertEqual(response.status, 200, response.bodyText)
        let board = try JSONDecoder().decode(StationboardAPIResponse.self, from: Data(response.body))
        XCTAssertFalse(board.stationboard.isEmpty)
        XCTAssertEqual(upstream.requests(.transport).last?.query["limit"], "420")
        XCTAssertEqual(upstream.requests(.transport).last?.query["date"], today)
        // The same request is memory's; the app's smaller limits for the same board (watch 100, widget 50, settings
        // 30) are cut from it: one upstream call for all four.
        XCTAssertEqual(try get(pier, "/v1/stationboard?id=8503651&limit=420&date=\(today)").body, response.body)
        for limit in [100, 50, 30, 5] {
            let smaller = try get(pier, "/v1/stationboard?id=8503651&limit=\(limit)&date=\(today)")
            XCTAssertEqual(smaller.status, 200)
            let cut = try JSONDecoder().decode(StationboardAPIResponse.self, from: Data(smaller.body))
            XCTAssertEqual(cut.stationboard.count, min(limit, board.stationboard.count))
            XCTAssertEqual(cut.stationboard.map(\.name), board.stationboard.prefix(limit).map(\.name))
        }
        XCTAssertEqual(upstream.requests(.transport).count, 1)
    }

    func testBadParametersUnknownStationsAndAStaleAnswer() throws {
        let pier = try startPier(["PIER_STATIONBOARD_TTL_S": "0.5", "PIER_FETCH": "off", "PIER_TRANSPORT_CLIENT_SHARE": "1"])
        let (date, nextDate) = (day(2), day(3))
        for (query, parameter) in [
            ("", "id"), ("id=abc", "id"), ("id=8503651&date=2026-13-01", "date"), ("id=8503651&limit=0", "limit"),
            ("id=8503651&limit=1001", "limit"), ("id=8503651&datetime=10:30", "datetime"),
            // What schemathesis once sent: no timetable answers it, so no budget token is spent on it.
            ("id=8503651&date=0163-02-13&datetime=3071-05-15%2000:49", "date"), ("id=8503651&date=\(day(400))", "date"),
            ("id=8503651&date=\(date)&datetime=\(nextDate)%2010:30", "datetime"),
        ] {
            let response = try get(pier, "/v1/stationboard?\(query)")
            XCTAssertEqual(response.status, 400, query)
            XCTAssertTrue(response.bodyText.hasPrefix(#"{"error":"\#(parameter)"#), "\(query): \(response.bodyText)")
        }
        XCTAssertEqual(upstream.requests(.transport).count, 0)
        let unknown = try get(pier, "/v1/stationboard?id=1234567&date=\(date)")
        XCTAssertEqual(unknown.status, 404, unknown.bodyText)

        // Without ship data the board still comes, every shipName null.
        let good = try get(pier, "/v1/stationboard?id=8503651&date=\(date)&datetime=\(date)%2010:30")
        XCTAssertEqual(good.status, 200, good.bodyText)
        XCTAssertEqual(upstream.requests(.transport).last?.query["datetime"], "\(date) 10:30")
        let board = try JSONDecoder().decode(StationboardAPIResponse.self, from: Data(good.body))
        XCTAssertTrue(board.stationboard.allSatisfy { $0.shipName == nil })
        // The upstream rate-limits once the answer has expired: the last good one, marked stale.
        upstream.set(.transport, .rateLimited(retryAfter: 300))
        usleep(600_000)
        let stale = try get(pier, "/v1/stationboard?id=8503651&date=\(date)&datetime=\(date)%2010:30")
        XCTAssertEqual(stale.status, 200)
        XCTAssertEqual(stale.header("x-pier-stale"), "stationboard")
        XCTAssertEqual(stale.body, good.body)
        // Nothing stored for another date, and the upstream asked for a pause: 503 with its Retry-After.
        let refused = try get(pier, "/v1/stationboard?id=8503651&date=\(nextDate)")
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(Int(refused.header("retry-after") ?? "") ?? 0, 300, accuracy: 2)
        let health = try get(pier, "/health").bodyText
        XCTAssertTrue(health.contains(#""stationboard":{"status":"failing""#), health)
        XCTAssertTrue(health.contains(#""paused_s":"#), health)
    }
}
