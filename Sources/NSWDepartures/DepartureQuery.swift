import Foundation
import HTTPServer
import NSWDeparturesFormat
import Parsing

/// The parameters of a `/v1/nsw/departures` request, checked: the stop, the mode Pier filters its copy by, and
/// the time asked for. One upstream answer per ``key`` serves every mode.
public struct DepartureQuery: Sendable, Hashable, CustomStringConvertible {
    /// A stop or platform id (`G203519`, `203294`).
    public let stop: String
    /// `nil`: every mode.
    public let mode: TransportMode?
    /// Sydney local date and `HHmm` asked for; `nil`: now (also when the time asked is within
    /// ``nearNow`` of now or earlier today — those share the stop's current answer).
    public let at: (date: CalendarDate, time: String)?
    /// The upstream request this query is answered from (memory and PostgreSQL key): the stop, plus the
    /// time when one is asked.
    public let key: String

    public static let sydney = TimeZone(identifier: "Australia/Sydney") ?? TimeZone(secondsFromGMT: 36_000) ?? .current
    /// Times asked up to this far ahead are answered from the stop's current answer (departures from now):
    /// the app sends the phone's clock, which should not cost an upstream call per minute.
    public static let nearNow: TimeInterval = 600
    /// How far ahead a time may be asked (timetables are published a few weeks ahead).
    public static let daysAhead = 28
    /// How far back: the app sends the phone's local time, which may lag; older times are a mistake.
    public static let pastAllowed: TimeInterval = 86_400
    static let stopIDLength = 1...40

    public init(stop: String, mode: TransportMode? = nil, at: (date: CalendarDate, time: String)? = nil) {
        self.stop = stop
        self.mode = mode
        self.at = at
        key = at.map { "\(stop)@\(Self.upstreamDate($0.date))T\($0.time)" } ?? stop
    }

    /// The stop's upstream request: every mode (the mode is filtered from Pier's copy).
    public var everyMode: DepartureQuery { mode == nil ? self : DepartureQuery(stop: stop, at: at) }

    /// One query per upstream request and mode.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key && lhs.mode == rhs.mode }

    /// The upstream request, as logs name it.
    public var description: String { key }

    /// The key alone: the few modes of one stop share a bucket, and `==` tells them apart (a mode hashed by its
    /// name's string cost more than the lookup).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }

    /// Reads and checks the request's query; a bad parameter is a `400` that names it.
    public init(_ request: borrowing HTTPRequest, now: Date = Date()) throws(HTTPError) {
        let query = request.query
        let stop = try Self.stop(query)
        let mode = try Self.mode(query)
        let dateText = query[literal: "date"], timeText = query[literal: "time"]
        var at: (date: CalendarDate, time: String)?
        if dateText != nil || timeText != nil {
            var date: CalendarDate?
            if let dateText {
                guard let parsed = Self.date(dateText) else { throw Self.bad("date must be a calendar date written YYYYMMDD, e.g. 20260706") }
                date = parsed
            }
            var time: String?
            if let timeText {
                guard Self.isTime(timeText) else { throw Self.bad("time must be a time of day written HHmm, e.g. 0810") }
                time = timeText
            }
            let today = CalendarDate(now, in: Self.sydney)
            let day = date ?? today
            let clock = time ?? (day == today ? Self.clock(now) : "0000")
            let instant = Self.instant(day, clock)
            if instant.timeIntervalSince(now) < -Self.pastAllowed {
                throw Self.bad("date and time must not lie more than a day in the past (Sydney time)")
            }
            if day.dayNumber - today.dayNumber > Self.daysAhead {
                throw Self.bad("date must lie within \(Self.daysAhead) days of today (\(Self.upstreamDate(today)) in Sydney)")
            }
            if instant.timeIntervalSince(now) > Self.nearNow { at = (day, clock) }
        }
        self.init(stop: stop, mode: mode, at: at)
    }

    /// `stop=`, checked at the value's bytes and made a `String` once it is a stop's id.
    private static func stop(_ query: QueryParameters) throws(HTTPError) -> String {
        let stop = try query.value(
            literal: "stop",
            refusal: { bad("stop must be a TfNSW stop or platform id (letters, digits, '-', '_', ':', '.'), e.g. G203519, not '\($0.prefix(40))'") }
        ) { bytes in
            stopIDLength.contains(bytes.count) && bytes.allSatisfy(isIDByte) ? String(decoding: bytes, as: UTF8.self) : nil
        }
        guard let stop else { throw bad("stop is required: a TfNSW stop or platform id, e.g. stop=G203519") }
        return stop
    }

    /// `mode=`, read from the value's bytes: nil when absent or empty.
    private static func mode(_ query: QueryParameters) throws(HTTPError) -> TransportMode? {
        try query.value(
            literal: "mode",
            refusal: { bad("mode must be one of \(TransportMode.requestable.map(\.rawValue).joined(separator: ", ")), not '\($0.prefix(20))'") },
            TransportMode.init(request:))
    }

    /// `itdDate` and `itdTime` for the upstream: the time asked, else now in Sydney.
    public func upstreamTime(now: Date) -> (date: String, time: String) {
        if let at { return (Self.upstreamDate(at.date), at.time) }
        return (Self.upstreamDate(CalendarDate(now, in: Self.sydney)), Self.clock(now))
    }

    static func upstreamDate(_ date: CalendarDate) -> String {
        String(decoding: date.description.utf8.filter { $0 != 0x2D }, as: UTF8.self)
    }

    /// `HHmm` of `instant` in Sydney.
    static func clock(_ instant: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = sydney
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        let hour = parts.hour ?? 0, minute = parts.minute ?? 0
        return "\(hour < 10 ? "0" : "")\(hour)\(minute < 10 ? "0" : "")\(minute)"
    }

    /// The instant of a Sydney local date and `HHmm` (DST-aware).
    static func instant(_ date: CalendarDate, _ clock: String) -> Date {
        let digits = Array(clock.utf8).map { Int($0) - 0x30 }
        let start = date.start(in: sydney)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = sydney
        var components = DateComponents()
        components.hour = digits[0] * 10 + digits[1]
        components.minute = digits[2] * 10 + digits[3]
        return calendar.date(byAdding: components, to: start) ?? start
    }

    private static func date(_ text: String) -> CalendarDate? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 8, utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let string = String(decoding: utf8[0..<4], as: UTF8.self) + "-" + String(decoding: utf8[4..<6], as: UTF8.self) + "-"
            + String(decoding: utf8[6..<8], as: UTF8.self)
        return CalendarDate(string)
    }

    private static func isTime(_ text: String) -> Bool {
        let digits = Array(text.utf8).map { Int($0) - 0x30 }
        guard digits.count == 4, digits.allSatisfy({ (0...9).contains($0) }) else { return false }
        return digits[0] * 10 + digits[1] < 24 && digits[2] * 10 + digits[3] < 60
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F, 0x3A, 0x2E: true
        default: false
        }
    }

    private static func bad(_ message: String) -> HTTPError {
        HTTPError(.badRequest, message)
    }
}
