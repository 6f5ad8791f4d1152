import Foundation
import ReplayMatching

/// The warnings feed and its CAP documents in a replay: each is recorded under its own path; in the demo the
/// documents' times (local, with their offset) are moved by the whole hours since they were recorded, so a
/// recorded warning is in force now.
public struct WarningsReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { path.contains("/cap/") }

    public func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8] {
        guard moveToNow else { return entry.body }
        return TimeShift.shift(offsetTimes: entry.body, by: TimeShift.hours(from: entry.receivedAt, to: now))
    }
}
