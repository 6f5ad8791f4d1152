import HTTPServer
import Parsing
@testable import Stationboard
import XCTest

final class StationboardQueryTests: XCTestCase {
    func query(_ text: String) throws -> StationboardQuery {
        let request = HTTPRequest(
            method: .get, target: "/v1/stationboard?\(text)", path: "/v1/stationboard", query: try XCTUnwrap(QueryParameters(raw: Substring(text))))
        return try StationboardQuery(request, today: { Self.today })
    }

    /// The tests' today: the fixtures' season.
    static let today = CalendarDate(year: 2026, month: 7, day: 1)

    func assertBadRequest(_ text: String, naming parameter: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try query(text), text, file: file, line: line) { error in
            guard let error = error as? HTTPError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.status, .badRequest, file: file, line: line)
            XCTAssertTrue(error.message.hasPrefix(parameter), "\(text): \(error.message)", file: file, line: line)
        }
    }

    func testTheAppsQueryIsReadAndPassedOn() throws {
        let parsed = try query("id=8503651&limit=30&date=2026-07-04&datetime=2026-07-04%2010:30")
        XCTAssertEqual(parsed.station, "8503651")
        XCTAssertEqual(parsed.limit, 30)
        XCTAssertEqual(parsed.date, CalendarDate("2026-07-04"))
        XCTAssertEqual(parsed.dateTime, "2026-07-04 10:30")
        XCTAssertEqual(parsed.upstreamQuery, "id=8503651&limit=30&date=2026-07-04&datetime=2026-07-04%2010:30")
        XCTAssertEqual(parsed.serviceDate(today: CalendarDate(year: 2026, month: 1, day: 1)), CalendarDate("2026-07-04"))
        XCTAssertEqual(try query("id=1").upstreamQuery, "id=1")
        XCTAssertEqual(try query("id=1&transportations[]=ship&type=arrival").upstreamQuery, "id=1&transportations%5B%5D=ship&type=arrival")
    }

    func testEqualRequestsShareOneKey() throws {
        XCTAssertEqual(try query("id=1&datetime=2026-07-04T10:30").key, try query("datetime=2026-07-04+10:30:59&id=1").key)
        XCTAssertNotEqual(try query("id=1&limit=5").key, try query("id=1&limit=6").key)
        XCTAssertNotEqual(try query("id=1&date=2026-07-04").key, try query("id=1").key)
    }

    func testBadParametersAreA400NamingThem() {
        assertBadRequest("", naming: "id")
        assertBadRequest("id=", naming: "id")
        assertBadRequest("id=Z%C3%BCrich", naming: "id")
        assertBadRequest("id=85036a1", naming: "id")
        assertBadRequest("id=-8503651", naming: "id")
        assertBadRequest("id=123456789012345678901", naming: "id")
        assertBadRequest("id=1&date=2026-02-30", naming: "date")
        assertBadRequest("id=1&date=04.07.2026", naming: "date")
        assertBadRequest("id=1&limit=0", naming: "limit")
        assertBadRequest("id=1&limit=1001", naming: "limit")
        assertBadRequest("id=1&limit=ten", naming: "limit")
        assertBadRequest("id=1&datetime=2026-07-04", naming: "datetime")
        assertBadRequest("id=1&datetime=2026-07-04%2024:00", naming: "datetime")
        assertBadRequest("id=1&datetime=2026-07-04%2010:60", naming: "datetime")
        assertBadRequest("id=1&transportations[]=rocket", naming: "transportations")
        assertBadRequest("id=1&type=both", naming: "type")
    }

    func testTheLimitsEndsAreAccepted() throws {
        XCTAssertEqual(try query("id=1&limit=1").limit, 1)
        XCTAssertEqual(try query("id=1&limit=1000").limit, 1000)
        // Read at its bytes as `Int(text)` reads it: a sign too, an empty value refused, leading zeros kept.
        XCTAssertEqual(try query("id=1&limit=%2B5").limit, 5)
        XCTAssertEqual(try query("id=1&limit=007").limit, 7)
        assertBadRequest("id=1&limit=", naming: "limit")
        assertBadRequest("id=1&limit=-5", naming: "limit")
        assertBadRequest("id=1&limit=99999999999999999999", naming: "limit")
    }

    /// The shipped Next Wave app's board request: a whole day of boats.
    func testTheAppsWholeDayLimitIsAcceptedAndKeyedApart() throws {
        let parsed = try query("id=8503651&limit=420&date=2026-07-04")
        XCTAssertEqual(parsed.limit, 420)
        XCTAssertEqual(parsed.upstreamQuery, "id=8503651&limit=420&date=2026-07-04")
        XCTAssertNotEqual(parsed.key, try query("id=8503651&limit=30&date=2026-07-04").key)
    }

    /// Requests no timetable can answer are refused before they cost an upstream call.
    func testDatesOutsideTheTimetableWindowOrContradictingEachOtherAreRefused() throws {
        assertBadRequest("id=1&date=0163-02-13&datetime=3071-05-15%2000:49", naming: "date")
        assertBadRequest("id=1&datetime=3071-05-15%2000:49", naming: "datetime")
        assertBadRequest("id=1&date=2027-07-03", naming: "date")
        assertBadRequest("id=1&date=2025-06-29", naming: "date")
        assertBadRequest("id=1&date=2026-07-04&datetime=2026-07-05%2010:30", naming: "datetime")
        // The window's ends are inside it.
        XCTAssertEqual(try query("id=1&date=2027-07-02").date, CalendarDate("2027-07-02"))
        XCTAssertEqual(try query("id=1&datetime=2025-06-30%2010:00").dateTime, "2025-06-30 10:00")
        XCTAssertEqual(try query("id=1&date=2026-07-04&datetime=2026-07-04T10:30").dateTime, "2026-07-04 10:30")
    }
}
