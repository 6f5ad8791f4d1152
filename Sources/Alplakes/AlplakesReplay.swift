import Foundation
import ReplayMatching

/// Alplakes' recordings in a replay (any time in the path serves the lake's recording); in the demo they are
/// moved by the whole 3-hour model steps since they were recorded.
public struct AlplakesReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { path.contains("/simulations/") }

    public func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8] {
        guard moveToNow else { return entry.body }
        return TimeShift.shift(seconds: TimeShift.steps(of: 10_800, from: entry.receivedAt, to: now), inForecastJSON: entry.body)
    }
}
