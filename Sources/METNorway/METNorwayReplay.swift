import Foundation
import ReplayMatching

/// MET Norway's recordings in a replay: any point is answered with the recording (the demo serves one forecast
/// everywhere it stands in); in the demo its times are moved by whole multiples of six hours since it was
/// recorded, so the six-hourly part stays on 00/06/12/18 UTC.
public struct METNorwayReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { path.contains("/locationforecast/") }

    public func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8] {
        guard moveToNow else { return entry.body }
        return TimeShift.shift(entry.body, by: TimeInterval(TimeShift.steps(of: 21_600, from: entry.receivedAt, to: now)))
    }
}
