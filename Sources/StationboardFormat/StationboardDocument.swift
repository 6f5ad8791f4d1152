import Basics
import Foundation
import Parsing

/// A transport.opendata.ch `/v1/stationboard` answer, checked, kept as the upstream's bytes, with where each
/// journey gets its `shipName`. Rendering copies the upstream's text and adds one member per journey, so every
/// field — times with their `+0200` offsets, numbers, nulls, fields Pier does not know — reaches the app
/// exactly as the upstream wrote it.
public struct StationboardDocument: Sendable {
    /// What Pier needs of one journey to find its ship.
    public struct Journey: Sendable, Equatable {
        /// The course (`name`, e.g. `000101`) when it is all digits.
        public var course: String?
        public var operatorName: String?
        /// The departure's local date (from `stop.departure`, else `stop.departureTimestamp` in Zurich).
        public var date: CalendarDate?
        /// The byte offset of the journey object's closing `}`.
        var end: Int
        /// Whether the object has members (so the added one needs a comma).
        var hasMembers: Bool
        /// The value of a `shipName` the upstream already sent, replaced rather than repeated.
        var existingShipName: Range<Int>?
    }

    /// Why an upstream answer was refused.
    public typealias Problem = DocumentProblem<StationboardDocument>

    public let body: [UInt8]
    /// The station's id as the upstream names it; `nil` when the upstream knows no such station.
    public let stationID: String?
    public let journeys: [Journey]
    /// The byte offset of the `stationboard` array's closing `]`.
    let listEnd: Int

    /// The time zone of the stationboard's local times (its replay reads them too).
    public static let zurich = TimeZone(identifier: "Europe/Zurich") ?? .current

    public init(parsing body: [UInt8]) throws(Problem) {
        let root: JSONNode
        do { root = try JSONScanner.parse(body) } catch { throw .notJSON(error.description) }
        guard root.isObject else { throw .unexpectedShape("not an object") }
        let station = root["station"]
        guard station == nil || station?.isNull == true || station?.isObject == true else {
            throw .unexpectedShape("station is neither an object nor null")
        }
        guard let board = root["stationboard"], let elements = board.elements else {
            throw .unexpectedShape("no stationboard array")
        }
        var journeys: [Journey] = []
        journeys.reserveCapacity(elements.count)
        for element in elements {
            guard element.isObject else { throw .unexpectedShape("a journey is not an object") }
            journeys.append(Self.journey(element, in: body))
        }
        self.body = body
        self.journeys = journeys
        listEnd = board.range.upperBound - 1
        // `id` is a string in the API's answers; a number is accepted as written.
        stationID = station?["id"].flatMap { node in node.string ?? node.integer(in: body).map(String.init) }
    }

    private static func journey(_ node: JSONNode, in body: [UInt8]) -> Journey {
        let name = node["name"]?.string?.trimmingCharacters(in: .whitespaces)
        let course = name.flatMap { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? $0 : nil }
        let stop = node["stop"]
        var date = stop?["departure"]?.string.flatMap { CalendarDate(String($0.prefix(10))) }
        if date == nil, let seconds = stop?["departureTimestamp"]?.integer(in: body) {
            date = CalendarDate(Date(timeIntervalSince1970: TimeInterval(seconds)), in: zurich)
        }
        return Journey(
            course: course, operatorName: node["operator"]?.string, date: date, end: node.range.upperBound - 1,
            hasMembers: !node.isEmptyObject, existingShipName: node["shipName"]?.range)
    }

    /// The same answer with only its first `count` journeys, as the upstream writes a board asked with that limit:
    /// the text up to the last journey kept, then the rest of the document from the list's end. `nil` when the
    /// cut text does not read back (it always should).
    public func prefix(_ count: Int) -> StationboardDocument? {
        guard count < journeys.count else { return self }
        guard count > 0 else { return nil }
        return try? StationboardDocument(parsing: Array(body[...journeys[count - 1].end]) + body[listEnd...])
    }

    /// The upstream's text with `"shipName"` on every journey: `ship(journey)` quoted, or `null`.
    public func rendered(ship: (Journey) -> String?) -> [UInt8] {
        let names = journeys.map { journey in JSONWriter.make { $0.string(ship(journey)) } }
        var out: [UInt8] = []
        out.reserveCapacity(body.count + journeys.count * 32)
        var copied = 0
        for (journey, name) in zip(journeys, names) {
            if let existing = journey.existingShipName {
                out.append(contentsOf: body[copied..<existing.lowerBound])
                out.append(contentsOf: name)
                copied = existing.upperBound
            } else {
                out.append(contentsOf: body[copied..<journey.end])
                out.append(contentsOf: Array((journey.hasMembers ? ",\"shipName\":" : "\"shipName\":").utf8))
                out.append(contentsOf: name)
                copied = journey.end
            }
        }
        out.append(contentsOf: body[copied...])
        return out
    }
}

extension StationboardDocument: NamedDocument {
    public static var documentName: String { "the stationboard answer" }
}
