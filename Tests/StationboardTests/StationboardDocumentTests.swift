import Foundation
import Parsing
import Ships
@testable import Stationboard
@testable import ShipsFormat
@testable import StationboardFormat
import UpstreamTesting
import XCTest

final class StationboardDocumentTests: XCTestCase {
    /// The ZSG deployments of a fixture date (`Tests/Fixtures/zsg/*.expected.json`).
    static func shipDay(_ date: String) throws -> ShipDay {
        let stamp = date.split(separator: "-").reversed().joined(separator: ".")
        struct Expected: Decodable { var date: String; var routes: [ShipRoute] }
        let expected = try JSONDecoder().decode(Expected.self, from: Data(try Fixtures.bytes("zsg", "schiffeinsatz-\(stamp).expected.json")))
        return ShipDay(date: try XCTUnwrap(CalendarDate(expected.date)), routes: expected.routes, scrapedAt: Date())
    }

    static let fixtureDates = ["2026-07-04", "2026-07-05", "2026-11-23", "2026-11-24"]

    func testEveryZSGCourseGetsItsShipAndTheOthersNull() throws {
        for date in Self.fixtureDates {
            let day = try Self.shipDay(date)
            let index = CourseIndex(days: [day], generation: 1)
            let document = try StationboardDocument(parsing: try Fixtures.bytes("transport", "stationboard-8503651-\(date).json"))
            XCTAssertEqual(document.stationID, "8503651")
            let rendered = document.rendered { journey in
                journey.course.flatMap { course in journey.date.flatMap { index.ship(course: course, on: $0) } }
            }
            let board = try JSONDecoder().decode(AppStationboard.self, from: Data(rendered))
            XCTAssertEqual(board.stationboard.count, document.journeys.count)
            var named = 0
            for journey in board.stationboard {
                // The app's own join: strip the zeros of `name`, look the course up for the date.
                let course = String((journey.name ?? "").drop { $0 == "0" })
                let expected = day.routes.first { String($0.courseNumber.drop { $0 == "0" }) == course }?.shipName
                XCTAssertEqual(journey.shipName, journey.operator == "ZSG" ? expected : nil, "\(date) course \(journey.name ?? "-")")
                if journey.shipName != nil { named += 1 }
            }
            XCTAssertGreaterThanOrEqual(named, 20, date)
            XCTAssertTrue(board.stationboard.contains { $0.shipName == nil }, "the fixture has journeys no ZSG page lists")
        }
    }

    func testTheUpstreamsBytesAreKeptAndOnlyShipNameIsAdded() throws {
        let body = try Fixtures.bytes("transport", "stationboard-8503651-2026-07-04.json")
        let document = try StationboardDocument(parsing: body)
        let rendered = document.rendered { _ in "MS \"Test\" \u{e9}" }
        let text = String(decoding: rendered, as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: #","shipName":"MS \"Test\" é""#).count - 1, document.journeys.count)
        XCTAssertEqual(text.replacingOccurrences(of: #","shipName":"MS \"Test\" é""#, with: ""), String(decoding: body, as: UTF8.self))
        // Times keep the upstream's "+0200" form, which strict ISO 8601 parsers reject: the app expects it.
        XCTAssertTrue(text.contains(#""departure": "2026-07-04T09:40:00+0200""#))
    }

    func testAnExistingShipNameIsReplacedNotRepeated() throws {
        let body = Array(#"{"station":{"id":"1"},"stationboard":[{"name":"0101","shipName":"old"},{},{"name":null}]}"#.utf8)
        let rendered = try StationboardDocument(parsing: body).rendered { $0.course == "0101" ? "MS Linth" : nil }
        XCTAssertEqual(
            String(decoding: rendered, as: UTF8.self),
            #"{"station":{"id":"1"},"stationboard":[{"name":"0101","shipName":"MS Linth"},{"shipName":null},{"name":null,"shipName":null}]}"#)
    }

    func testJourneysReadTheirCourseOperatorAndDate() throws {
        let body = Array(
            #"{"station":{"id":8503651},"stationboard":[{"name":" 000113 ","operator":"ZSG","stop":{"departure":"2026-07-04T23:59:00+0200"}},"#
                .utf8)
            + Array(#"{"name":"IR 13","operator":"SBB","stop":{"departure":null,"departureTimestamp":1783205940}},{"name":7}]}"#.utf8)
        let document = try StationboardDocument(parsing: body)
        XCTAssertEqual(document.stationID, "8503651")
        XCTAssertEqual(document.journeys.map(\.course), ["000113", nil, nil])
        XCTAssertEqual(document.journeys.map(\.operatorName), ["ZSG", "SBB", nil])
        // 1783205940 is 2026-07-05 00:59 in Zurich.
        XCTAssertEqual(document.journeys.map(\.date), [CalendarDate("2026-07-04"), CalendarDate("2026-07-05"), nil])
    }

    func testAnswersThatAreNotStationboardsAreRefused() {
        let cases: [(String, String)] = [
            ("<html>busy</html>", "not JSON"), ("", "not JSON"), (#"{"stationboard":[]} x"#, "not JSON"),
            ("[]", "not an object"), (#"{"station":{"id":"1"}}"#, "no stationboard"), (#"{"stationboard":{}}"#, "no stationboard"),
            (#"{"stationboard":[1]}"#, "not an object"), (#"{"station":"x","stationboard":[]}"#, "station"),
            (#"{"stationboard":[{"name":"\ud800"}]}"#, "surrogate"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try StationboardDocument(parsing: Array(text.utf8)), text) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(text): \(error)")
            }
        }
    }

    func testAStationThatIsNullMeansAnUnknownStation() throws {
        XCTAssertNil(try StationboardDocument(parsing: Array(#"{"station":null,"stationboard":[]}"#.utf8)).stationID)
        XCTAssertNil(try StationboardDocument(parsing: Array(#"{"stationboard":[]}"#.utf8)).stationID)
    }
}
