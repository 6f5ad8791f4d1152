import Foundation
import ReplayMatching

/// OpenWeather's recordings in a replay: a forecast is answered with the recording nearest the point asked; in
/// the demo it is moved by the whole 3-hour model steps since it was recorded, so it starts now.
public struct OpenWeatherReplay: ReplayMatcher {
    public init() {}

    /// OpenWeather's epoch members.
    static let epochMembers = ["dt", "sunrise", "sunset"]

    public func handles(path: String, query: [String: String]) -> Bool { path.hasSuffix("/forecast") && query["lat"] != nil }

    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? {
        guard let latitude = query["lat"].flatMap(Double.init), let longitude = query["lon"].flatMap(Double.init) else { return nil }
        let located = entries.compactMap { entry in
            entry.query["lat"].flatMap(Double.init).flatMap { lat in entry.query["lon"].flatMap(Double.init).map { (entry, lat, $0) } }
        }
        return located.min { hypot($0.1 - latitude, $0.2 - longitude) < hypot($1.1 - latitude, $1.2 - longitude) }?.0
    }

    public func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8] {
        guard moveToNow else { return entry.body }
        return TimeShift.shift(
            seconds: TimeShift.steps(of: 10_800, from: entry.receivedAt, to: now), inForecastJSON: entry.body, epochMembers: Self.epochMembers)
    }
}
