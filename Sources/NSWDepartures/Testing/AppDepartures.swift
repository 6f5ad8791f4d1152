import Foundation

/// Shaped like the Trip Planner app's `DepartureResponse` (HarlenPostill/tripPlanner `tripPlanner/BusService.swift`):
/// the keys its `StopEvent` requires, with their types — `isCancelled` and `isAccessible` JSON booleans,
/// `colour.background`/`foreground` strings, optional estimate, status, occupancy and `isHighFrequency`.
/// Written from the fixture README's table, not copied. One event that fails fails the whole list, as in the app.
public struct AppDepartures: Decodable, Sendable {
    public struct StopEvent: Decodable, Sendable {
        public struct Location: Decodable, Sendable {
            public let name: String
            public let occupancy: String?
        }
        public struct Transportation: Decodable, Sendable {
            public struct Destination: Decodable, Sendable {
                public let name: String
            }
            public struct Colour: Decodable, Sendable {
                public let background: String
                public let foreground: String
                public let text: String?
            }
            public let disassembledName: String
            public let number: String?
            public let description: String
            public let destination: Destination
            public let colour: Colour
        }
        public let id: String
        public let location: Location
        public let departureTime: String
        public let departureTimePlanned: String
        public let departureTimeEstimated: String?
        public let departureStatus: String?
        public let transportation: Transportation
        public let isCancelled: Bool
        public let isAccessible: Bool
        public let arrivalTimePlanned: String?
        public let isHighFrequency: Bool?

        /// `departureTime` as the app parses it (ISO 8601, with or without fractional seconds).
        public var departure: Date? { AppDepartures.date(departureTime) }
    }

    public let stopEvents: [StopEvent]

    public static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
