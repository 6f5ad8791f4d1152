import Feature
import Foundation
import Geography

/// The ~200 stations with their latest conditions, in memory, for the nearest-station lookup on the hot path.
/// Replaced as a whole after each observations fetch (and loaded from PostgreSQL at start-up).
public struct StationIndex: Sendable {
    public let stations: [StationObservation]
    /// Grows with every replacement, so answers derived from one index can be recognised as current.
    public let generation: Int

    public init(stations: [StationObservation], generation: Int = 0) {
        self.stations = stations
        self.generation = generation
    }

    /// The nearest station whose temperature was observed within `maximumAge` of `now`, and its distance.
    public func nearest(latitude: Double, longitude: Double, now: Date, maximumAge: TimeInterval = 3 * 3600)
        -> (station: StationObservation, kilometres: Double)?
    {
        var best: (station: StationObservation, kilometres: Double)?
        for station in stations where station.temperature != nil && now.timeIntervalSince(station.observedAt) <= maximumAge {
            let distance = GreatCircle.kilometres(latitude, longitude, station.latitude, station.longitude)
            if distance < (best?.kilometres ?? .infinity) { best = (station, distance) }
        }
        return best
    }
}
