import Foundation
import Scheduling
import XCTest

final class FetchScheduleTests: XCTestCase {
    let zurich = TimeZone(identifier: "Europe/Zurich")!

    private func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }

    func testIntervalRunsAtOnceWithoutDataAndAfterTheInterval() {
        let schedule = FetchSchedule.every(.seconds(6 * 3600))
        let now = date("2026-11-23T12:00:00Z")
        XCTAssertEqual(schedule.nextRun(after: nil, now: now), now)
        XCTAssertEqual(schedule.nextRun(after: date("2026-11-23T10:00:00Z"), now: now), date("2026-11-23T16:00:00Z"))
        XCTAssertEqual(schedule.nextRun(after: date("2026-11-23T01:00:00Z"), now: now), now, "overdue runs at once")
    }

    func testDailyRunsAtZurichWallClockTimeAcrossDST() {
        let schedule = FetchSchedule.daily(hour: 3, minute: 0, timeZone: zurich)
        // Winter: 03:00 CET is 02:00 UTC.
        XCTAssertEqual(schedule.nextRun(after: date("2026-11-23T02:00:41Z"), now: date("2026-11-23T12:00:00Z")), date("2026-11-24T02:00:00Z"))
        // Summer: 03:00 CEST is 01:00 UTC.
        XCTAssertEqual(schedule.nextRun(after: date("2026-07-04T01:00:30Z"), now: date("2026-07-04T12:00:00Z")), date("2026-07-05T01:00:00Z"))
        // The night of the change to summer time (29 March 2026): 03:00 CEST = 01:00 UTC.
        XCTAssertEqual(schedule.nextRun(after: date("2026-03-28T02:00:10Z"), now: date("2026-03-28T20:00:00Z")), date("2026-03-29T01:00:00Z"))
    }

    func testDailyRunsAtOnceWhenTodaysRunWasMissed() {
        let schedule = FetchSchedule.daily(hour: 3, minute: 0, timeZone: zurich)
        let now = date("2026-11-23T09:00:00Z")
        XCTAssertEqual(schedule.nextRun(after: date("2026-11-22T02:00:00Z"), now: now), now)
        XCTAssertEqual(schedule.nextRun(after: nil, now: now), now)
    }

    func testStaleAfterIsOneAndAHalfIntervals() {
        XCTAssertEqual(FetchSchedule.every(.seconds(3600)).staleAfter, .seconds(5400))
        XCTAssertEqual(FetchSchedule.daily(hour: 3, minute: 0, timeZone: zurich).staleAfter, .seconds(36 * 3600))
    }

    func testBackoffDoublesUpToTheMaximum() {
        let retry = RetryPolicy(initial: .seconds(300), maximum: .seconds(3600))
        XCTAssertEqual((1...6).map { retry.delay(afterFailures: $0) }, [300, 600, 1200, 2400, 3600, 3600])
        XCTAssertEqual(retry.delay(afterFailures: 1000), 3600)
    }

    func testSourceStatusIsOkStaleOrFailing() {
        let now = date("2026-11-23T12:00:00Z")
        let fresh = SourceHistory(lastSuccess: date("2026-11-23T11:00:00Z"), lastOutcome: .ok)
        XCTAssertEqual(fresh.status(source: "s", staleAfter: .seconds(7200), now: now).state, .ok)
        XCTAssertEqual(fresh.status(source: "s", staleAfter: .seconds(7200), now: now).ageSeconds, 3600)
        XCTAssertEqual(fresh.status(source: "s", staleAfter: .seconds(1800), now: now).state, .stale)
        XCTAssertEqual(SourceHistory().status(source: "s", staleAfter: .seconds(7200), now: now).state, .stale)
        let failing = SourceHistory(lastSuccess: date("2026-11-23T11:00:00Z"), lastOutcome: .suspect, lastError: "drift")
        let status = failing.status(source: "s", staleAfter: .seconds(7200), now: now)
        XCTAssertEqual(status.state, .failing)
        XCTAssertEqual(status.lastError, "drift")
        XCTAssertNil(fresh.status(source: "s", staleAfter: .seconds(7200), now: now).lastError)
    }
}
