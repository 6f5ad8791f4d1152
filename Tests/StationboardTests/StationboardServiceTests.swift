import Basics
import DatabaseTesting
import Feature
import Foundation
import HTTPServer
import OnDemand
import Parsing
import Postgres
import Scheduling
import SharedAnswers
import Ships
@testable import Stationboard
@testable import ShipsFormat
@testable import StationboardFormat
import UpstreamHTTP
import UpstreamTesting
import XCTest

/// The service against real PostgreSQL and a local transport.opendata.ch serving the fixtures.
final class StationboardServiceTests: XCTestCase {
    var database: TestDatabase!
    var pool: PostgresPool!
    var upstream: FixtureUpstream!
    /// The ships' course index the service sees; tests replace it as a new scrape would.
    let courses = SharedValue(CourseIndex())
    /// A manual monotonic clock for the budget and the upstream's pause.
    let clock = SharedValue<Double>(1000)

    override func setUp() async throws {
        database = try TestDatabase.createMigrated()
        pool = try await database.migratedPool()
        upstream = try FixtureUpstream()
        let days = try ["2026-07-04", "2026-07-05"].map(shipDay(servedFor:))
        courses.update { $0 = CourseIndex(days: days, generation: 1) }
    }

    /// ZSG's deployments on `date` as the fixture upstream serves them (the page of the fixture date whose
    /// board is served for `date`).
    func shipDay(servedFor date: String) throws -> ShipDay {
        var day = try StationboardDocumentTests.shipDay(try XCTUnwrap(upstream.stationboardFixtureDate(for: date)))
        day.date = try XCTUnwrap(CalendarDate(date))
        return day
    }

    /// The app's own join on a decoded board: strip the zeros of `name`, look the course up for the date.
    func expectedShips(_ board: AppStationboard, on date: String, day given: ShipDay? = nil) throws -> [String?] {
        let day = try given ?? shipDay(servedFor: date)
        return board.stationboard.map { journey in
            guard journey.operator == "ZSG" else { return nil }
            let course = String((journey.name ?? "").drop { $0 == "0" })
            return day.routes.first { String($0.courseNumber.drop { $0 == "0" }) == course }?.shipName
        }
    }

    override func tearDown() {
        upstream?.stop()
        pool?.close()
        database?.drop()
    }

    /// The engine as the route uses it.
    typealias Service = OnDemand<StationboardSource>

    func service(_ configure: (inout StationboardFeature.Settings) -> Void = { _ in }, board: SourceStatusBoard? = nil) -> Service {
        var settings = StationboardFeature.Settings()
        configure(&settings)
        let courses = courses, clock = clock
        return OnDemand(
            kind: StationboardFeature.source,
            source: StationboardSource(
                client: TransportClient(baseURL: upstream.transportURL, client: UpstreamClient(configuration: .init(timeout: .seconds(5)))),
                store: SharedAnswerStore(pool: pool), courses: { courses.value }, settings: settings.source),
            upstream: OnDemandUpstream(name: "transport.opendata.ch", metric: "transport", settings: settings.upstream, quota: nil, clock: { clock.value }, metrics: nil),
            report: UpstreamReport(source: StationboardFeature.source, board: board), settings: settings.engine)
    }

    let july4 = StationboardQuery(station: "8503651", date: CalendarDate("2026-07-04"), limit: 30)

    func decode(_ response: OnDemandResponse) throws -> AppStationboard {
        XCTAssertEqual(response.response.status, .ok, String(decoding: response.response.body, as: UTF8.self))
        return try JSONDecoder().decode(AppStationboard.self, from: Data(response.response.body))
    }

    func shipNames(_ response: OnDemandResponse) throws -> [String?] {
        try decode(response).stationboard.map(\.shipName)
    }

    func testABoardGetsItsShipsAndIsStoredForEveryReplica() async throws {
        let first = service()
        let response = await first.response(for: july4, client: nil)
        let board = try decode(response)
        XCTAssertGreaterThanOrEqual(board.stationboard.count, 23)
        XCTAssertEqual(board.stationboard.map(\.shipName), try expectedShips(board, on: "2026-07-04"))
        XCTAssertGreaterThanOrEqual(board.stationboard.compactMap(\.shipName).count, 20)
        XCTAssertEqual(board.stationboard.filter { $0.shipName == nil }.map(\.name), ["009000", "009001", "009002"])
        XCTAssertNotNil(response.response.headers["etag"])
        XCTAssertEqual(response.response.headers["cache-control"]?.hasPrefix("public, max-age="), true)
        XCTAssertEqual(upstream.requests(.transport).count, 1)
        XCTAssertEqual(upstream.requests(.transport).first?.query["date"], "2026-07-04")
        // Another process (a replica, a restart) answers from PostgreSQL without asking the upstream, same bytes.
        let second = service()
        let again = await second.response(for: july4, client: nil)
        XCTAssertEqual(again.response.body, response.response.body)
        XCTAssertEqual(again.entityTag, response.entityTag)
        XCTAssertEqual(upstream.requests(.transport).count, 1)
        let rows = try await pool.query("SELECT count(*) AS n FROM upstream_answers WHERE kind = 'stationboard'")
        XCTAssertEqual(try rows.first?.decode(Int.self, "n"), 1)
    }

    func testTheAppsFourLimitsForOneBoardCostOneUpstreamCall() async throws {
        // The Next Wave app asks one pier's day with limit=420 (station screen), 100 (watch), 50 (widget), 30 (settings).
        let service = service()
        let query = { (limit: Int) in StationboardQuery(station: "8503651", date: CalendarDate("2026-07-04"), limit: limit) }
        let whole = await service.response(for: query(420), client: nil)
        var bodies: [Int: [UInt8]] = [:]
        for limit in [100, 50, 30, 20, 7, 1] { bodies[limit] = await service.response(for: query(limit), client: nil).response.body }
        XCTAssertEqual(upstream.requests(.transport).count, 1, "every smaller limit is cut from the 420 board")
        let journeys = try decode(whole).stationboard.count
        XCTAssertGreaterThan(journeys, 20, "the fixture's whole day")
        // Each is what asking the upstream with that limit gives (another process, nothing in memory or stored for it).
        for limit in [20, 7, 1] {
            let asked = await self.service().response(for: query(limit), client: nil).response.body
            XCTAssertEqual(bodies[limit], asked, "limit=\(limit)")
            XCTAssertEqual(try JSONDecoder().decode(AppStationboard.self, from: Data(asked)).stationboard.count, limit)
        }
        XCTAssertEqual(bodies[100], whole.response.body, "a board shorter than the limit is whole (\(journeys) journeys)")
        XCTAssertEqual(bodies[50], whole.response.body)
        XCTAssertEqual(upstream.requests(.transport).map { $0.query["limit"] }, ["420", "20", "7", "1"])
        // A larger limit than any held is asked for; a request without a limit (the upstream's default) too.
        _ = await service.response(for: StationboardQuery(station: "8503651", date: CalendarDate("2026-07-04")), client: nil)
        XCTAssertEqual(upstream.requests(.transport).count, 5)
    }

    func testFiftyConcurrentColdRequestsMakeOneUpstreamCall() async throws {
        let service = service()
        let july4 = july4
        let bodies = await withTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<50 { group.addTask { await service.response(for: july4, client: nil).response.body } }
            return await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        XCTAssertEqual(bodies.count, 50)
        XCTAssertEqual(Set(bodies).count, 1)
        XCTAssertEqual(upstream.requests(.transport).count, 1)
    }

    func testNewShipDataChangesShipNamesWithoutAnUpstreamCall() async throws {
        let service = service()
        let board = try decode(await service.response(for: july4, client: nil))
        let first = try XCTUnwrap(board.stationboard.first?.shipName)
        // A new scrape: the first journey's course now sails with another ship.
        var day = try shipDay(servedFor: "2026-07-04")
        let course = try XCTUnwrap(board.stationboard.first?.name).drop { $0 == "0" }
        day.routes = day.routes.map { $0.courseNumber.drop { $0 == "0" } == course ? ShipRoute(shipName: "MS Panta Rhei", courseNumber: $0.courseNumber) : $0 }
        courses.update { $0 = CourseIndex(days: [day], generation: $0.generation + 1) }
        let after = try shipNames(try XCTUnwrap(service.cachedResponse(for: july4)))
        XCTAssertNotEqual(first, "MS Panta Rhei")
        XCTAssertEqual(after.first, "MS Panta Rhei")
        XCTAssertEqual(after, try expectedShips(board, on: "2026-07-04", day: day))
        XCTAssertEqual(upstream.requests(.transport).count, 1)
        // A date the new ship data no longer covers gets no ship names, still from memory.
        courses.update { $0 = CourseIndex(days: [], generation: $0.generation + 1) }
        XCTAssertEqual(try shipNames(try XCTUnwrap(service.cachedResponse(for: july4))).compactMap { $0 }, [])
        XCTAssertEqual(upstream.requests(.transport).count, 1)
    }

    func testTodaysBoardExpiresSoonAndOtherDatesLater() async throws {
        let service = service()
        let now = Date()
        let today = StationboardQuery(station: "8503651", date: service.source.today(now))
        let board = StationboardSource.Board.board(try StationboardDocument(parsing: try XCTUnwrap(upstream.stationboardBody(for: "2026-07-04"))))
        XCTAssertEqual(service.source.lifetime(of: board, for: today, now: now), 60)
        XCTAssertEqual(service.source.lifetime(of: .unknownStation, for: today, now: now), 1800, "an unknown station for the longer time")
        XCTAssertEqual(service.source.lifetime(of: board, for: StationboardQuery(station: "8503651"), now: now), 60)
        XCTAssertEqual(service.source.lifetime(of: board, for: july4, now: now), 1800)
        _ = await service.response(for: today, client: nil, now: now)
        XCTAssertNotNil(service.cachedResponse(for: today, now: now.addingTimeInterval(59)))
        XCTAssertNil(service.cachedResponse(for: today, now: now.addingTimeInterval(61)))
        // Expired: asked again (PostgreSQL's copy is as old as memory's).
        _ = await service.response(for: today, client: nil, now: now.addingTimeInterval(61))
        XCTAssertEqual(upstream.requests(.transport).count, 2)
    }

    func testOn429TheLastGoodAnswerIsServedStaleAndTheUpstreamIsLeftAloneUntilRetryAfter() async throws {
        let service = service()
        let now = Date()
        let good = await service.response(for: july4, client: nil, now: now)
        upstream.set(.transport, .rateLimited(retryAfter: 120))
        let later = now.addingTimeInterval(1801)
        let stale = await service.response(for: july4, client: nil, now: later)
        XCTAssertEqual(stale.response.status, .ok)
        XCTAssertEqual(stale.response.headers["x-pier-stale"], "stationboard")
        XCTAssertEqual(stale.response.body, good.response.body)
        XCTAssertEqual(upstream.requests(.transport).count, 2)
        // Another key during the pause: not asked; nothing stored → 503 with the pause's Retry-After.
        let other = StationboardQuery(station: "8503651", date: CalendarDate("2026-07-05"))
        let refused = await service.response(for: other, client: nil, now: later)
        XCTAssertEqual(refused.response.status, .serviceUnavailable)
        XCTAssertEqual(Int(refused.response.headers["retry-after"] ?? ""), 120)
        XCTAssertEqual(upstream.requests(.transport).count, 2)
        // After the pause the upstream is asked again.
        upstream.set(.transport, .normal)
        clock.update { $0 += 121 }
        let fresh = await service.response(for: other, client: nil, now: later)
        XCTAssertEqual(fresh.response.status, .ok)
        XCTAssertEqual(upstream.requests(.transport).count, 3)
    }

    func testFailuresAndGarbageServeTheLastGoodAnswerAndStoreNothing() async throws {
        let board = SourceStatusBoard(sources: [("stationboard", .seconds(86_400))])
        let service = service(board: board)
        let now = Date()
        let good = await service.response(for: july4, client: nil, now: now)
        for (index, mode) in [FixtureUpstream.Mode.status(500), .garbage, .json(Array(#"{"stationboard":"none"}"#.utf8))].enumerated() {
            upstream.set(.transport, mode)
            let later = now.addingTimeInterval(1801 + Double(index) * 31)
            let stale = await service.response(for: july4, client: nil, now: later)
            XCTAssertEqual(stale.response.status, .ok, "\(mode)")
            XCTAssertEqual(stale.response.headers["x-pier-stale"], "stationboard", "\(mode)")
            XCTAssertEqual(stale.response.body, good.response.body, "\(mode)")
            // Served stale for a little while before the upstream is tried again.
            XCTAssertNotNil(service.cachedResponse(for: july4, now: later.addingTimeInterval(29)))
            XCTAssertNil(service.cachedResponse(for: july4, now: later.addingTimeInterval(31)))
            XCTAssertEqual(board.statuses().first?.state, .failing)
        }
        XCTAssertEqual(upstream.requests(.transport).count, 4)
        let stored = try await pool.query("SELECT body FROM upstream_answers WHERE kind = 'stationboard'").map { try $0.decode(String.self, "body") }
        XCTAssertEqual(stored, [String(decoding: try XCTUnwrap(upstream.stationboardBody(for: "2026-07-04")), as: UTF8.self)])
        let serviceHealth = try OrderedJSONEncoder.string(service.health())
        XCTAssertTrue(serviceHealth.contains(#""upstream":"reachable""#), serviceHealth)
    }

    func testNothingStoredAndTheUpstreamDownIsA503WithRetryAfter() async throws {
        upstream.set(.transport, .status(502))
        let response = await service().response(for: july4, client: nil)
        XCTAssertEqual(response.response.status, .serviceUnavailable)
        XCTAssertEqual(response.response.headers["retry-after"], "60")
        XCTAssertTrue(String(decoding: response.response.body, as: UTF8.self).contains("\"error\""))
    }

    func testAnUnknownStationIsA404RememberedWithoutAskingAgain() async throws {
        let service = service()
        let unknown = StationboardQuery(station: "1234567", date: CalendarDate("2026-07-04"))
        for _ in 0..<2 {
            let status = await service.response(for: unknown, client: nil).response.status
            XCTAssertEqual(status, .notFound)
        }
        XCTAssertEqual(upstream.requests(.transport).count, 1)
        // `"station": null` in a 200 means the same.
        upstream.set(.transport, .json(Array(#"{"station":null,"stationboard":[]}"#.utf8)))
        let other = StationboardQuery(station: "7654321")
        let status = await service.response(for: other, client: nil).response.status
        XCTAssertEqual(status, .notFound)
    }

    func testTheBudgetBoundsUpstreamCallsAndEachClientsShare() async throws {
        let service = service { $0.upstream.budget = .init(ratePerMinute: 6, burst: 4, clientShare: 0.5) }
        // Clients in other /24s: a network has one share, whatever number of addresses it uses.
        let greedy = IPAddress("192.0.2.1").map(Spender.init), other = IPAddress("198.51.100.2").map(Spender.init)
        var statuses: [Int] = []
        for day in 1...4 {
            let query = StationboardQuery(station: "8503651", date: CalendarDate(year: 2026, month: 8, day: day))
            statuses.append(await service.response(for: query, client: greedy).response.status.code)
        }
        // The share is half the burst: two calls, then 429 (this client should slow down, RFC 6585) with the
        // seconds until this client's next token.
        XCTAssertEqual(statuses, [200, 200, 429, 429])
        let refused = await service.response(for: StationboardQuery(station: "8503651", date: CalendarDate("2026-08-09")), client: greedy)
        XCTAssertEqual(Int(refused.response.headers["retry-after"] ?? ""), 20)
        // Another client still gets its own.
        let fine = await service.response(for: StationboardQuery(station: "8503651", date: CalendarDate("2026-08-10")), client: other)
        XCTAssertEqual(fine.response.status, .ok)
        XCTAssertEqual(upstream.requests(.transport).count, 3)
        // The last token of the shared burst; after it the service's budget is spent for everyone: 503.
        let last = await service.response(for: StationboardQuery(station: "8503651", date: CalendarDate("2026-08-11")), client: IPAddress("203.0.113.3").map(Spender.init))
        XCTAssertEqual(last.response.status, .ok)
        let spent = await service.response(for: StationboardQuery(station: "8503651", date: CalendarDate("2026-08-12")), client: IPAddress("100.64.0.4").map(Spender.init))
        XCTAssertEqual(spent.response.status, .serviceUnavailable)
        XCTAssertNotNil(spent.response.headers["retry-after"])
    }

    func testJourneysWithNullFieldsAndOtherTransportAreServedWithoutAShip() async throws {
        let route = try XCTUnwrap(try shipDay(servedFor: "2026-07-04").routes.first)
        let name = String(repeating: "0", count: max(0, 6 - route.courseNumber.count)) + route.courseNumber
        let body = #"""
            {"station":{"id":"8503651","name":"Zürich Bürkliplatz (See)","score":null,"coordinate":{"type":"WGS84","x":47.365662,"y":8.541005},"distance":null},
             "stationboard":[
              {"stop":{"station":{"id":"8503651","name":null,"coordinate":{"type":"WGS84","x":null,"y":null}},"arrival":null,"departure":null,"departureTimestamp":null,"delay":null,"platform":null,"prognosis":null},
               "name":null,"category":null,"subcategory":null,"categoryCode":null,"number":null,"operator":null,"to":null,"passList":[],"capacity1st":null,"capacity2nd":null},
              {"stop":{"station":{"id":"8503651","name":"Zürich Bürkliplatz (See)"},"departure":"2026-07-04T10:05:00+0200","departureTimestamp":1783152300},
               "name":"COURSE","category":"T","number":"4","operator":"VBZ","to":"Tiefenbrunnen","passList":[]},
              {"stop":{"station":{"id":"8503651"},"departure":"2026-07-04T10:05:00+0200","departureTimestamp":1783152300},
               "name":"COURSE","category":"BAV","number":"3732","operator":"ZSG","to":"Wädenswil (See)"}
             ]}
            """#.replacingOccurrences(of: "COURSE", with: name)
        upstream.set(.transport, .json(Array(body.utf8)))
        let board = try decode(await service().response(for: july4, client: nil))
        XCTAssertEqual(board.stationboard.map(\.shipName), [nil, nil, route.shipName])
        XCTAssertNil(board.stationboard[0].stop.departure)
    }
}
