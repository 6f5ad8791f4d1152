import Foundation
import Parsing
import ReplayMatching

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
        // Today as the fetcher counts it (Zurich's date), not UTC's: they differ for an hour or two every night.
        return entries.recorded(day: wanted, today: CalendarDate(now, in: Self.zurich).dayNumber) { $0.query["timestamp"].flatMap(Self.day) }
    }

    /// The day number of a `timestamp` (epoch milliseconds of 12:00 UTC on the date asked).
    private static func day(_ milliseconds: String) -> Int? {
        Int64(milliseconds).map { Int((Double($0) / 86_400_000).rounded(.down)) }
    }
}
