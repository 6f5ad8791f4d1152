import Foundation
import Parsing
import ReplayMatching
import StationboardFormat

/// transport.opendata.ch's recordings in a replay: a board's date (`date`, `datetime`, else today in Zurich) is
/// answered with the recorded board at the same distance from today as it was from the recording's first date,
/// its times moved to the date asked.
public struct TransportReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { query["id"] != nil && path.hasSuffix("/stationboard") }

    public var queriesNameADay: Bool { true }

    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? {
        guard let wanted = Self.requestedDate(query, now: now) else { return nil }
        return entries.recorded(day: wanted.dayNumber, today: CalendarDate(now, in: StationboardDocument.zurich).dayNumber) {
            $0.query["date"].flatMap(CalendarDate.init)?.dayNumber
        }
    }

    public func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8] {
        guard let wanted = Self.requestedDate(query, now: now), let recorded = entry.query["date"].flatMap(CalendarDate.init) else { return entry.body }
        return TimeShift.shift(days: wanted.dayNumber - recorded.dayNumber, inJSON: entry.body)
    }

    /// `datetime`'s date, else `date`, else today in Zurich.
    private static func requestedDate(_ query: [String: String], now: Date) -> CalendarDate? {
        if let text = query["datetime"] ?? query["date"] { return CalendarDate(String(text.prefix(10))) }
        return CalendarDate(now, in: StationboardDocument.zurich)
    }
}
