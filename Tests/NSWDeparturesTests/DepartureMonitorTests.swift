import Foundation
@testable import NSWDeparturesFormat
import UpstreamTesting
import XCTest

@testable import NSWDepartures

/// The contract's mapping, checked against the `.expected.json` answers written by the fixture generator
/// (an independent reading of the contract, in Python) and the variants' expected answer.
final class DepartureMonitorTests: XCTestCase {
    static let fixtureNow = FixtureUpstream.tfnswFixtureNow

    func departures(_ name: String) throws -> [Departure] {
        let monitor = try DepartureMonitor(parsing: try Fixtures.bytes("nsw", name))
        guard case .departures(let list) = monitor.content else { throw NotADepartureList(content: monitor.content) }
        return list
    }

    /// Thrown (a failure, never a skip) when a fixture that must hold departures does not.
    struct NotADepartureList: Error {
        var content: DepartureMonitor.Content
    }

    func json(_ bytes: [UInt8]) throws -> NSDictionary {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    func testEveryFixtureMapsExactlyToItsExpectedAnswer() throws {
        for stop in ["G203519", "203294", "variants"] {
            let list = try departures("departure_mon-\(stop).json")
            let rendered = DepartureList.json(list, mode: nil, after: Self.fixtureNow)
            let expected = try Fixtures.bytes("nsw", "departure_mon-\(stop).expected.json")
            XCTAssertEqual(try json(rendered), try json(expected), stop)
            // The app's model decodes every answer, and its order is by departure time.
            let decoded = try JSONDecoder().decode(AppDepartures.self, from: Data(rendered))
            let times = decoded.stopEvents.compactMap(\.departure)
            XCTAssertEqual(times.count, decoded.stopEvents.count)
            XCTAssertEqual(times, times.sorted())
            XCTAssertEqual(Set(decoded.stopEvents.map(\.id)).count, decoded.stopEvents.count, "ids are unique within an answer")
        }
    }

    func testEachMappingRule() throws {
        let list = try departures("departure_mon-G203519.json")
        // The late 302 (planned 22:14) passes the 348 without real time (planned 22:15): sorted by departure time.
        XCTAssertEqual(list.map(\.disassembledName).prefix(4), ["891", "L2", "348", "302"])
        let late = try XCTUnwrap(list.first { $0.id == "2512317" })
        XCTAssertEqual(late.status, "late")
        XCTAssertEqual(late.departureTime, late.estimated)
        let withoutRealtime = try XCTUnwrap(list.first { $0.estimated == nil })
        XCTAssertNil(withoutRealtime.status)
        XCTAssertEqual(withoutRealtime.departureTime, withoutRealtime.planned)
        XCTAssertEqual(withoutRealtime.id, "nsw:30348: :R:sj2@2026-07-05T22:15:00Z", "line and planned time when there is no trip id")
        XCTAssertEqual(list.first { $0.id == "48508-10660:1001" }?.status, "early")
        XCTAssertEqual(list.filter(\.isCancelled).map(\.id), ["43699-10565:1001"])
        XCTAssertEqual(Set(list.map(\.isAccessible)), [true, false])
        XCTAssertEqual(Set(list.map(\.mode)), [.bus, .lightrail])
        XCTAssertEqual(list.first { $0.mode == .lightrail }?.mode.colour, "EE343F")
        XCTAssertEqual(list.first { $0.mode == .bus }?.mode.colour, "00B5EF")
    }

    func testTheModeFilterAndDeparturesThatHaveLeft() throws {
        let list = try departures("departure_mon-G203519.json")
        let bus = try JSONDecoder().decode(AppDepartures.self, from: Data(DepartureList.json(list, mode: .bus, after: Self.fixtureNow)))
        XCTAssertEqual(bus.stopEvents.count, 6)
        XCTAssertTrue(bus.stopEvents.allSatisfy { $0.transportation.colour.background == "00B5EF" })
        let rail = try JSONDecoder().decode(AppDepartures.self, from: Data(DepartureList.json(list, mode: .lightrail, after: Self.fixtureNow)))
        XCTAssertEqual(rail.stopEvents.map(\.transportation.disassembledName), ["L2", "L3"])
        XCTAssertEqual(try JSONDecoder().decode(AppDepartures.self, from: Data(DepartureList.json(list, mode: .ferry, after: Self.fixtureNow))).stopEvents.count, 0)
        // At 22:15:00 the 891 (22:13:20), the L2 (22:14:58) and the 348 (22:15:00) have left.
        let later = Self.fixtureNow + 300
        let left = try JSONDecoder().decode(AppDepartures.self, from: Data(DepartureList.json(list, mode: nil, after: later)))
        XCTAssertEqual(left.stopEvents.first?.departureTime, "2026-07-05T22:16:58Z")
        XCTAssertEqual(left.stopEvents.count, 5)
        XCTAssertEqual(DepartureList.nextDeparture(list, mode: nil, after: later), Self.fixtureNow + 418)
        XCTAssertEqual(DepartureList.nextDeparture(list, mode: .lightrail, after: later), Self.fixtureNow + 420)
    }

    func testVariantsAreReadWhole() throws {
        let monitor = try DepartureMonitor(parsing: try Fixtures.bytes("nsw", "departure_mon-variants.json"))
        XCTAssertEqual(monitor.dropped, ["no departureTimePlanned"])
        let list = try departures("departure_mon-variants.json")
        XCTAssertEqual(list.count, 7)
        XCTAssertEqual(list.first?.locationName, "Anzac Pde near Strachan St, Kingsford", "the stop's name when the event has none")
        XCTAssertEqual(list.first?.number, "891", "number falls back to disassembledName")
        XCTAssertEqual(list.first { $0.id.hasPrefix("nsw:30348") }?.planned, Self.fixtureNow + 300, "+10:00 and fractions read")
    }

    func testAnUnknownStopAndAnswersThatAreNotDepartureMonitors() throws {
        XCTAssertEqual(try DepartureMonitor(parsing: try Fixtures.bytes("nsw", "departure_mon-unknown-stop.json")).content, .unknownStop)
        XCTAssertEqual(try DepartureMonitor(parsing: Array(#"{"version":"10","locations":[]}"#.utf8)).content, .unknownStop)
        // A located stop without events: an empty list, not an unknown stop.
        XCTAssertEqual(try DepartureMonitor(parsing: Array(#"{"locations":[{"id":"1"}],"stopEvents":[]}"#.utf8)).content, .departures([]))
        XCTAssertEqual(try DepartureMonitor(parsing: Array(#"{"locations":[{"id":"1"}]}"#.utf8)).content, .departures([]))
        // An error message next to good data is not a failure.
        let withMessage = #"{"systemMessages":[{"type":"error","code":-8011}],"locations":[{"id":"1"}],"stopEvents":[]}"#
        XCTAssertEqual(try DepartureMonitor(parsing: Array(withMessage.utf8)).content, .departures([]))
        for garbage in [try Fixtures.bytes("nsw", "401.json"), Array("<html>".utf8), Array("[1,2]".utf8), Array(#"{"stopEvents":{}}"#.utf8),
            Array(#"{"stopEvents":[{"departureTimePlanned":"2026-07-06 08:10"}]}"#.utf8)]
        {
            XCTAssertThrowsError(try DepartureMonitor(parsing: garbage), String(decoding: garbage, as: UTF8.self))
        }
    }

    func testTheQuotaIsSpreadOverTheWatchedStops() {
        XCTAssertEqual(QuotaSpreading.ttl(base: 30, watched: 1, quotaLeft: 50_000, secondsLeftToday: 86_400), 30)
        XCTAssertEqual(QuotaSpreading.ttl(base: 30, watched: 300, quotaLeft: 50_000, secondsLeftToday: 86_400), 518.4, accuracy: 0.01)
        XCTAssertEqual(QuotaSpreading.ttl(base: 30, watched: 300, quotaLeft: 10_000, secondsLeftToday: 3600), 108, accuracy: 0.01)
        XCTAssertEqual(QuotaSpreading.ttl(base: 30, watched: 0, quotaLeft: 0, secondsLeftToday: 3600), 30)
        XCTAssertEqual(QuotaSpreading.ttl(base: 30, watched: 2, quotaLeft: 0, secondsLeftToday: 3600), 7200)
    }
}
