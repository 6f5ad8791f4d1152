import Foundation
import ReplayMatching

/// FMI's recordings in a replay: a stored query is answered with the recording of the same `storedquery_id` (a
/// point forecast serves any point); in the demo its times are moved by the whole hours since it was recorded.
public struct FMIReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { query["storedquery_id"] != nil }

    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? {
        entries.first { $0.query["storedquery_id"] == query["storedquery_id"] }
    }

    public func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8] {
        guard moveToNow, entry.contentType?.contains("xml") == true else { return entry.body }
        return TimeShift.shift(entry.body, by: TimeShift.hours(from: entry.receivedAt, to: now))
    }
}
