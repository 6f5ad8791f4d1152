import Parsing
import Ships
import ShipsFormat
import XCTest

final class ShipDriftCheckTests: XCTestCase {
    let today = CalendarDate(year: 2026, month: 11, day: 23)

    private func week(routes: Int = 5, ships: Int = 3, size: Int = 6000, sameBytes: Bool = false) -> [ShipDriftCheck.Day] {
        (0..<7).map { offset in
            ShipDriftCheck.Day(
                date: today.adding(days: offset),
                bodyBytes: Array((sameBytes ? "page" : "page \(offset)").utf8) + [UInt8](repeating: 32, count: size),
                shipCount: ships,
                routes: (0..<routes).map { ShipRoute(shipName: "MS A", courseNumber: "\($0)") })
        }
    }

    func testAnOrdinaryWeekPasses() {
        XCTAssertNil(ShipDriftCheck.problem(with: week(), previous: [:]))
        XCTAssertNil(ShipDriftCheck.problem(with: week(), previous: [today: 6, today.adding(days: 1): 5]))
    }

    func testALargePageWithoutShipsIsSuspect() {
        var days = week()
        days[3].shipCount = 0
        days[3].routes = []
        XCTAssertTrue(ShipDriftCheck.problem(with: days, previous: [:])?.contains("no ships") ?? false)
        days[3].bodyBytes = Array("<div class=\"schiffeinsatz\"></div>".utf8)
        XCTAssertNil(ShipDriftCheck.problem(with: days, previous: [:]), "a small empty page is a day without service")
    }

    func testIdenticalDaysAreSuspect() {
        XCTAssertTrue(ShipDriftCheck.problem(with: week(sameBytes: true), previous: [:])?.contains("byte-identical") ?? false)
    }

    func testAWeekWithoutRoutesIsSuspect() {
        XCTAssertEqual(ShipDriftCheck.problem(with: week(routes: 0, size: 10), previous: [:]), "no day has any route")
    }

    func testASuddenDropIsSuspect() {
        let previous = Dictionary(uniqueKeysWithValues: (0..<6).map { (today.adding(days: $0), 20) })
        XCTAssertTrue(ShipDriftCheck.problem(with: week(routes: 5), previous: previous)?.contains("fewer than half") ?? false)
        XCTAssertNil(ShipDriftCheck.problem(with: week(routes: 10), previous: previous))
    }
}
