/// One departure from a stop, as Pier keeps it: what the Trip Planner app's `StopEvent` needs, read once from
/// `departure_mon` (the contract's mapping), with the times as epoch seconds so departures that have left
/// can be dropped and the rest sorted without parsing again.
public struct Departure: Sendable, Equatable, Codable {
    /// `properties.RealtimeTripId`, else `<transportation.id>@<planned time>` (unique within an answer).
    public var id: String
    public var locationName: String
    /// `location.properties.occupancy` (`MANY_SEATS`, …).
    public var occupancy: String?
    /// Epoch seconds.
    public var planned: Int
    /// Epoch seconds; `nil` without real time.
    public var estimated: Int?
    public var number: String
    public var disassembledName: String
    public var description: String
    public var destination: String
    public var mode: TransportMode
    public var isCancelled: Bool
    public var isAccessible: Bool
    public var isHighFrequency: Bool

    /// When it leaves: the estimate, else the timetable.
    public var departureTime: Int { estimated ?? planned }

    /// `late` / `early` beyond a minute, else `on time`; `nil` without real time (the contract).
    public var status: String? {
        guard let estimated else { return nil }
        let difference = estimated - planned
        return difference > 60 ? "late" : difference < -60 ? "early" : "on time"
    }
}
