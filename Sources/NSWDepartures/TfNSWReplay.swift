import Foundation
import ReplayMatching

/// TfNSW's recordings in a replay: a stop (`name_dm`) gets its own recording, else the one recorded for any other
/// stop (`name_dm=*`); in the demo its departures are moved by the whole minutes since, so they leave from now on.
public struct TfNSWReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { query["name_dm"] != nil }

    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? {
        entries.recorded(for: "name_dm", in: query)
    }

    public func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8] {
        guard moveToNow else { return entry.body }
        return TimeShift.shift(entry.body, by: TimeShift.minutes(from: entry.receivedAt, to: now))
    }
}
