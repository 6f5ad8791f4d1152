import Foundation
import Replay

/// ZSG's recordings in a replay: a day page (`timestamp`, the date in epoch milliseconds) is answered with the
/// recorded day at the same distance from today as it was from the recording's first day, so a recording made
/// last week serves this week.
public struct ZSGReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { query["timestamp"] != nil }

    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? {
        guard let wanted = query["timestamp"].flatMap(Double.init) else { return nil }
        let day = { (milliseconds: Double) in (milliseconds / 86_400_000).rounded(.down) }
        let dated = entries.compactMap { entry in entry.query["timestamp"].flatMap(Double.init).map { (entry, day($0)) } }
        guard let first = dated.map(\.1).min() else { return nil }
        let offset = day(wanted) - (now.timeIntervalSince1970 / 86_400).rounded(.down)
        return dated.min { abs($0.1 - first - offset) < abs($1.1 - first - offset) }?.0
    }
}
