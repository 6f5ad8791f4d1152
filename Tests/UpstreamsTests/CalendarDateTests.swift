import Foundation
import Parsing
import XCTest

final class CalendarDateTests: XCTestCase {
    func testParsesOnlyRealDatesInTheContractForm() {
        XCTAssertEqual(CalendarDate("2026-11-23"), CalendarDate(year: 2026, month: 11, day: 23))
        XCTAssertEqual(CalendarDate("2028-02-29")?.description, "2028-02-29")
        XCTAssertEqual(CalendarDate("2000-02-29")?.description, "2000-02-29")
        XCTAssertNil(CalendarDate("2100-02-29"))
        XCTAssertNil(CalendarDate("2026-04-31"))
        XCTAssertNil(CalendarDate("2026-00-10"))
        for bad in [
            "2026-02-29", "2026-13-01", "2026-11-31", "2026-1-05", "26-11-23", "2026-11-23T00:00", "", "２０２６-11-23", "+026-11-23",
            "2026-07-00", "2026-07-4", "2026/07/04", "2026-07-04 ", " 2026-07-04", "2026-07-041", "2026-0a-04", "2026-07-0٤", "----------",
        ] {
            XCTAssertNil(CalendarDate(bad), bad)
        }
    }

    func testTodayDependsOnTheTimeZone() {
        let instant = ISO8601DateFormatter().date(from: "2026-11-23T23:30:00Z")!
        XCTAssertEqual(CalendarDate(instant, in: TimeZone(identifier: "UTC")!).description, "2026-11-23")
        XCTAssertEqual(CalendarDate(instant, in: TimeZone(identifier: "Europe/Zurich")!).description, "2026-11-24")
    }

    func testNoonUTCAndArithmetic() {
        let date = CalendarDate(year: 2026, month: 11, day: 23)
        XCTAssertEqual(Int64(date.noonUTC.timeIntervalSince1970) * 1000, 1_795_435_200_000)
        XCTAssertEqual(date.adding(days: 8).description, "2026-12-01")
        XCTAssertEqual(CalendarDate(year: 2026, month: 12, day: 31).adding(days: 1).description, "2027-01-01")
        XCTAssertEqual(CalendarDate(year: 2026, month: 3, day: 29).start(in: TimeZone(identifier: "Europe/Zurich")!),
                       ISO8601DateFormatter().date(from: "2026-03-28T23:00:00Z"))
    }

    /// Found by fuzz-date: the day before 0001-01-01 came out as 0001-12-31 (Foundation's BC era).
    func testDayArithmeticIsProlepticAndAgreesWithFoundation() throws {
        let first = try XCTUnwrap(CalendarDate("0001-01-01"))
        XCTAssertEqual(first.adding(days: -1).description, "0000-12-31")
        XCTAssertLessThan(first.adding(days: -1), first)
        XCTAssertEqual(CalendarDate("0000-12-31")?.adding(days: 1), first)
        XCTAssertEqual(CalendarDate("2024-02-28")?.adding(days: 1).description, "2024-02-29")
        XCTAssertEqual(CalendarDate("2100-02-28")?.adding(days: 1).description, "2100-03-01")
        XCTAssertEqual(CalendarDate("1970-01-01")?.dayNumber, 0)
        let utc = TimeZone(identifier: "UTC")!
        var date = CalendarDate(year: 1899, month: 12, day: 25)
        for step in 0..<(200 * 365) where step % 7 == 0 || step < 400 {
            let expected = CalendarDate(date.noonUTC.addingTimeInterval(Double(step) * 86_400), in: utc)
            XCTAssertEqual(date.adding(days: step), expected, "\(date) + \(step)")
            if step > 400 { date = date.adding(days: 1) }
        }
    }

    func testTimestampSpellings() {
        let instant = Date(timeIntervalSince1970: 1_795_399_241.512)
        XCTAssertEqual(Timestamp.iso8601(instant), "2026-11-23T02:00:41Z")
        XCTAssertEqual(Timestamp.iso8601(Date(timeIntervalSince1970: 1_795_399_241.999)), "2026-11-23T02:00:41Z", "cut, not rounded up")
        // JavaScript's toISOString(): milliseconds, cut.
        XCTAssertEqual(Timestamp.javaScript(instant), "2026-11-23T02:00:41.512Z")
        XCTAssertEqual(Timestamp.javaScript(Date(timeIntervalSince1970: 1_795_399_241)), "2026-11-23T02:00:41.000Z")
        XCTAssertEqual(Timestamp.javaScript(Date(timeIntervalSince1970: 1_795_399_241.9996)), "2026-11-23T02:00:41.999Z")
        XCTAssertEqual(Timestamp.javaScript(Date(timeIntervalSince1970: 1_795_399_241.25)), "2026-11-23T02:00:41.250Z")
        XCTAssertEqual(Timestamp.swissLocal(instant, timeZone: TimeZone(identifier: "Europe/Zurich")!), "23.11.2026, 03:00:41")
    }
}
