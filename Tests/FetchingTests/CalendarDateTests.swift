import Fetching
import Foundation
import XCTest

final class CalendarDateTests: XCTestCase {
    func testParsesOnlyRealDatesInTheContractForm() {
        XCTAssertEqual(CalendarDate("2026-11-23"), CalendarDate(year: 2026, month: 11, day: 23))
        XCTAssertEqual(CalendarDate("2028-02-29")?.description, "2028-02-29")
        XCTAssertEqual(CalendarDate("2000-02-29")?.description, "2000-02-29")
        XCTAssertNil(CalendarDate("2100-02-29"))
        XCTAssertNil(CalendarDate("2026-04-31"))
        XCTAssertNil(CalendarDate("2026-00-10"))
        for bad in ["2026-02-29", "2026-13-01", "2026-11-31", "2026-1-05", "26-11-23", "2026-11-23T00:00", "", "２０２６-11-23", "+026-11-23"] {
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

    func testTimestampSpellings() {
        let instant = Date(timeIntervalSince1970: 1_795_399_241.512)
        XCTAssertEqual(Timestamp.iso8601(instant), "2026-11-23T02:00:41Z")
        XCTAssertEqual(Timestamp.iso8601(Date(timeIntervalSince1970: 1_795_399_241.999)), "2026-11-23T02:00:41Z", "cut, not rounded up")
        XCTAssertEqual(Timestamp.swissLocal(instant, timeZone: TimeZone(identifier: "Europe/Zurich")!), "23.11.2026, 03:00:41")
    }
}
