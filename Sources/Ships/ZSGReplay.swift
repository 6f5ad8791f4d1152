import Fetching
import Foundation
import Replay

/// ZSG's recordings in a replay: a day page (`timestamp`, the date in epoch milliseconds) is answered with the
/// recorded day at the same distance from today as it was from the recording's first day, so a recording made
/// last week serves this week.
public struct ZSGReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { query["timestamp"] != nil }

    public var queriesNameADay: Bool { true }

    private static let zurich = TimeZone(identifier: "Europe/Zurich") ?? .current

    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? {
        guard let wanted = query["timestamp"].flatMap(Self.day) else { return nil }
        let dated = entries.compactMap { entry in entry.query["timestamp"].flatMap(Self.day).map { (entry, $0) } }
        guard let first = dated.map(\.1).min() else { return nil }
        // Today as the fetcher counts it (Zurich's date), not UTC's: they differ for an hour or two every night.
        let offset = wanted - CalendarDate(now, in: Self.zurich).dayNumber
        return dated.min { abs($0.1 - first - offset) < abs($1.1 - first - offset) }?.0
    }

    /// The day number of a `timestamp` (epoch milliseconds of 12:00 UTC on the date asked).
    private static func day(_ milliseconds: String) -> Int? {
        guard let milliseconds = Int64(milliseconds) else { return nil }
        let (days, rest) = (milliseconds / 1000).quotientAndRemainder(dividingBy: 86_400)
        return Int(rest < 0 ? days - 1 : days)
    }
}
