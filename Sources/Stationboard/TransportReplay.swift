import Fetching
import Foundation
import Replay

/// transport.opendata.ch's recordings in a replay: a board's date (`date`, `datetime`, else today in Zurich) is
/// answered with the recorded board at the same distance from today as it was from the recording's first date,
/// its times moved to the date asked.
public struct TransportReplay: ReplayMatcher {
    public init() {}

    private static let zurich = TimeZone(identifier: "Europe/Zurich") ?? .current

    public func handles(path: String, query: [String: String]) -> Bool { query["id"] != nil && path.hasSuffix("/stationboard") }

    public var queriesNameADay: Bool { true }

    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? {
        let wanted = Self.requestedDate(query, now: now)
        let dated = entries.compactMap { entry in entry.query["date"].flatMap(CalendarDate.init).map { (entry, $0.dayNumber) } }
        guard let wanted, let first = dated.map(\.1).min() else { return nil }
        let offset = wanted.dayNumber - CalendarDate(now, in: Self.zurich).dayNumber
        return dated.min { abs($0.1 - first - offset) < abs($1.1 - first - offset) }?.0
    }

    public func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8] {
        guard let wanted = Self.requestedDate(query, now: now), let recorded = entry.query["date"].flatMap(CalendarDate.init) else { return entry.body }
        return TimeShift.shift(days: wanted.dayNumber - recorded.dayNumber, inJSON: entry.body)
    }

    /// `datetime`'s date, else `date`, else today in Zurich.
    private static func requestedDate(_ query: [String: String], now: Date) -> CalendarDate? {
        if let text = query["datetime"] ?? query["date"] { return CalendarDate(String(text.prefix(10))) }
        return CalendarDate(now, in: zurich)
    }
}
