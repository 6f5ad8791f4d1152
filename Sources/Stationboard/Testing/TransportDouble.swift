import Foundation
import HTTPServer
import Parsing
import ReplayMatching

/// transport.opendata.ch's stationboards of ``FixtureUpstream/transportStation``: for the requested date
/// (`datetime`'s, `date`, else today in Zurich) the fixture whose ZSG page is served for that date, moved to it, and
/// — as the upstream does — only its first `limit` journeys, each written as in the whole board; any other station
/// is unknown (`404`).
struct TransportDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.transport
    let paths = ["/v1/stationboard"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_TRANSPORT_URL": server.transportURL] }
    let unlimited = ["PIER_TRANSPORT_REQUESTS_PER_MINUTE": "100000", "PIER_TRANSPORT_BURST": "100000", "PIER_TRANSPORT_CLIENT_SHARE": "1"]
    /// The boards in the order of the ZSG pages.
    let boards: [(date: String, body: [UInt8])]

    init() throws {
        boards = try Fixtures.stationboards()
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        let today = CalendarDate(Date(), in: TimeZone(identifier: "Europe/Zurich") ?? .current).description
        let requested = (request.query["datetime"].map { String($0.prefix(10)) } ?? request.query["date"]) ?? today
        guard request.query["id"] == FixtureUpstream.transportStation, let body = Self.body(boards, for: requested) else {
            return Self.json(Array(#"{"errors":[{"message":"Station not found"}]}"#.utf8), status: .notFound)
        }
        return Self.json(request.query["limit"].flatMap(Int.init).map { Self.first($0, of: body) } ?? body)
    }

    /// The board's text with only its first `count` journeys (the rest of the document unchanged).
    static func first(_ count: Int, of body: [UInt8]) -> [UInt8] {
        guard count > 0, let root = try? JSONScanner.parse(body), let list = root["stationboard"], let journeys = list.elements,
            count < journeys.count
        else { return body }
        return Array(body[..<journeys[count - 1].range.upperBound]) + body[(list.range.upperBound - 1)...]
    }

    /// The fixture date whose board is served for `date` (`YYYY-MM-DD`): the one whose ZSG page is served for
    /// that date (the same day number modulo the number of pages), so every ZSG course of the date departs on it.
    static func fixtureDate(_ boards: [(date: String, body: [UInt8])], for date: String) -> String? {
        guard let requested = CalendarDate(date), !boards.isEmpty else { return nil }
        return boards[(requested.dayNumber % boards.count + boards.count) % boards.count].date
    }

    static func body(_ boards: [(date: String, body: [UInt8])], for date: String) -> [UInt8]? {
        guard let requested = CalendarDate(date), let fixture = fixtureDate(boards, for: date).flatMap(CalendarDate.init),
            let board = boards.first(where: { $0.date == fixture.description })
        else { return nil }
        return TimeShift.shift(days: requested.dayNumber - fixture.dayNumber, inJSON: board.body)
    }
}

extension FixtureUpstream.Upstream {
    public static let transport = Self("transport")
}

extension FixtureUpstream {
    public var transportURL: String { baseURL + "/v1" }

    /// The station the transport fixtures are for (Zürich Bürkliplatz (See)); any other id is unknown (`404`).
    public static let transportStation = "8503651"

    /// The fixture date whose board is served for `date` (see ``TransportDouble``).
    public func stationboardFixtureDate(for date: String) -> String? {
        double(TransportDouble.self).flatMap { TransportDouble.fixtureDate($0.boards, for: date) }
    }

    /// The board served for `date`: the fixture of ``stationboardFixtureDate(for:)`` moved to `date`.
    public func stationboardBody(for date: String) -> [UInt8]? {
        double(TransportDouble.self).flatMap { TransportDouble.body($0.boards, for: date) }
    }
}
