import Foundation
import HTTPServer
import Parsing

/// The parameters of a `/v1/stationboard` request, checked and in one canonical form: the cache key and the
/// upstream's query string are built from it, so equal requests share one answer.
public struct StationboardQuery: Sendable, Hashable, CustomStringConvertible {
    /// The station's id (digits, e.g. `8503651`).
    public let station: String
    public let date: CalendarDate?
    /// `nil`: the upstream's default.
    public let limit: Int?
    /// `YYYY-MM-DD hh:mm`, as the upstream expects it.
    public let dateTime: String?
    /// `transportations[]` values, in the order given.
    public let transportations: [String]
    /// `departure` (the upstream's default when `nil`) or `arrival`.
    public let type: String?
    /// One string per distinct request (the PostgreSQL key), built when asked: a request answered from memory is
    /// found by its fields (building this string was a tenth of a cached board's instructions).
    public var key: String {
        "\(station)|\(date?.description ?? "")|\(limit.map(String.init) ?? "")|\(dateTime ?? "")|\(transportations.joined(separator: ","))|\(type ?? "")"
    }

    /// The board asked for, whatever the limit: requests equal but for `limit` ask for prefixes of one list.
    public var board: String {
        "\(station)|\(date?.description ?? "")|\(dateTime ?? "")|\(transportations.joined(separator: ","))|\(type ?? "")"
    }

    /// The same request with another limit.
    public func with(limit: Int?) -> StationboardQuery {
        StationboardQuery(station: station, date: date, limit: limit, dateTime: dateTime, transportations: transportations, type: type)
    }

    /// The upstream request, as logs name it.
    public var description: String { key }

    /// The station and the limit tell most boards held at once apart; `==` compares every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(station)
        hasher.combine(limit)
    }

    /// The shipped Next Wave app asks for `limit=420` (a whole day of boats); up to 1000 are accepted.
    public static let limitRange = 1...1000
    /// How far from today (Zurich) a `date` or `datetime` may lie: beyond, no timetable can answer, so the
    /// request is refused before it costs an upstream call.
    public static let dayWindow = 366
    /// What transport.opendata.ch accepts in `transportations[]` (current and older names).
    public static let transportationNames: Set<String> = [
        "train", "tram", "ship", "bus", "cableway", "ice_tgv_rj", "ec_ic", "ir", "re_d", "s_sn_r", "arz_ext",
        "tramway_underground",
    ]

    public init(station: String, date: CalendarDate? = nil, limit: Int? = nil, dateTime: String? = nil, transportations: [String] = [], type: String? = nil) {
        self.station = station
        self.date = date
        self.limit = limit
        self.dateTime = dateTime
        self.transportations = transportations
        self.type = type
    }

    /// Reads and checks the request's query; a bad parameter is a `400` that names it.
    /// - Parameter today: today's date in Zurich, asked only when the request names a date.
    public init(_ request: borrowing HTTPRequest, today: () -> CalendarDate) throws(HTTPError) {
        let query = request.query
        // Checked at the value's bytes, made a `String` once it is a station's id.
        let station = try query.value(literal: "id", refusal: { Self.bad("id must be a station id made of digits, e.g. 8503651, not '\($0.prefix(40))'") }) {
            $0.count <= 20 && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? String(decoding: $0, as: UTF8.self) : nil
        }
        guard let id = station else {
            throw Self.bad("id is required: the station's id, e.g. id=8503651 (Zürich Bürkliplatz (See))")
        }
        var knownToday: CalendarDate?
        func currentDay() -> CalendarDate {
            let day = knownToday ?? today()
            knownToday = day
            return day
        }
        var date: CalendarDate?
        if let text = query[literal: "date"] {
            guard let parsed = CalendarDate(text) else { throw Self.bad("date must be a calendar date written YYYY-MM-DD") }
            guard Self.isWithinWindow(parsed, today: currentDay()) else {
                throw Self.bad("date must lie within \(Self.dayWindow) days of today (\(currentDay())), not \(parsed)")
            }
            date = parsed
        }
        var limit: Int?
        // Read at its bytes (no `String` for the number the app sends on every request).
        switch query.withValue(literal: "limit", DecimalText.integer(bytes:)) {
        case nil: break
        case let parsed?? where Self.limitRange.contains(parsed): limit = parsed
        default: throw Self.bad("limit must be a whole number from \(Self.limitRange.lowerBound) to \(Self.limitRange.upperBound)")
        }
        var dateTime: String?
        if let text = query[literal: "datetime"] {
            guard let parsed = Self.dateTime(text) else {
                throw Self.bad("datetime must be a date and time written YYYY-MM-DD hh:mm (e.g. 2026-07-04 10:30)")
            }
            let day = CalendarDate(String(parsed.prefix(10)))
            if let day, !Self.isWithinWindow(day, today: currentDay()) {
                throw Self.bad("datetime must lie within \(Self.dayWindow) days of today (\(currentDay())), not \(day)")
            }
            if let date, let day, day != date {
                throw Self.bad("datetime's day (\(day)) contradicts date (\(date)): give one of them, or the same day")
            }
            dateTime = parsed
        }
        // Most requests name no transportation: two tests of the query's name signs, no arrays.
        let named = query.contains(literal: "transportations[]") || query.contains(literal: "transportations")
        let transportations = named ? query.values("transportations[]") + query.values("transportations") : []
        for name in transportations where !Self.transportationNames.contains(name) {
            throw Self.bad("transportations[] must be one of \(Self.transportationNames.sorted().joined(separator: ", ")), not '\(name.prefix(40))'")
        }
        var type: String?
        if let text = query[literal: "type"] {
            guard text == "departure" || text == "arrival" else { throw Self.bad("type must be departure or arrival") }
            type = text
        }
        self.init(station: id, date: date, limit: limit, dateTime: dateTime, transportations: transportations, type: type)
    }

    private static func isWithinWindow(_ date: CalendarDate, today: CalendarDate) -> Bool {
        abs(date.dayNumber - today.dayNumber) <= dayWindow
    }

    private static func bad(_ message: String) -> HTTPError {
        HTTPError(.badRequest, message)
    }

    /// `YYYY-MM-DD hh:mm` (a `T` instead of the space and trailing `:ss` accepted) in the upstream's form.
    static func dateTime(_ text: String) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 16 || utf8.count == 19, utf8[10] == UInt8(ascii: " ") || utf8[10] == UInt8(ascii: "T"),
            let date = CalendarDate(String(decoding: utf8[0..<10], as: UTF8.self))
        else { return nil }
        let clock = utf8[11...]
        func number(_ range: Range<Int>, below limit: Int) -> Bool {
            guard range.allSatisfy({ utf8[$0] >= 0x30 && utf8[$0] <= 0x39 }), let value = Int(String(decoding: utf8[range], as: UTF8.self)) else {
                return false
            }
            return value < limit
        }
        guard clock.count == 5 || clock.count == 8, utf8[13] == UInt8(ascii: ":"), number(11..<13, below: 24), number(14..<16, below: 60) else {
            return nil
        }
        if utf8.count == 19 { guard utf8[16] == UInt8(ascii: ":"), number(17..<19, below: 60) else { return nil } }
        return "\(date) " + String(decoding: utf8[11..<16], as: UTF8.self)
    }

    /// The date the board is for: that of `datetime`, else `date`, else `today`.
    public func serviceDate(today: CalendarDate) -> CalendarDate {
        dateTime.flatMap { CalendarDate(String($0.prefix(10))) } ?? date ?? today
    }

    /// The upstream's query string (without `?`), percent-encoded.
    public var upstreamQuery: String {
        var parts = ["id=\(station)"]
        if let limit { parts.append("limit=\(limit)") }
        if let date { parts.append("date=\(date)") }
        if let dateTime { parts.append("datetime=" + dateTime.replacingOccurrences(of: " ", with: "%20")) }
        for name in transportations { parts.append("transportations%5B%5D=\(name)") }
        if let type { parts.append("type=\(type)") }
        return parts.joined(separator: "&")
    }
}
