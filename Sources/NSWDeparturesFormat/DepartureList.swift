import HTTPServer
import Parsing

/// The app's `DepartureResponse` written from departures: `{"stopEvents": [ … ]}` with every key the app
/// requires on every event (one event missing one would fail the app's whole list).
public enum DepartureList {
    /// The departures after `now` (those that have left are dropped) of `mode` (all when `nil`), in their
    /// order (sorted by departure time).
    public static func json(_ departures: [Departure], mode: TransportMode?, after now: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64 + departures.count * 560)
        output.append(contentsOf: #"{"stopEvents":["#.utf8)
        var first = true
        for departure in departures where departure.departureTime > now && (mode == nil || departure.mode == mode) {
            if !first { output.append(0x2C) }
            first = false
            write(departure, into: &output)
        }
        output.append(contentsOf: "]}".utf8)
        return output
    }

    /// When the first departure of `mode` (any when `nil`) after `now` leaves: the answer made at `now` holds until then.
    public static func nextDeparture(_ departures: [Departure], mode: TransportMode?, after now: Int) -> Int? {
        departures.lazy.filter { $0.departureTime > now && (mode == nil || $0.mode == mode) }.map(\.departureTime).min()
    }

    private static func write(_ departure: Departure, into output: inout [UInt8]) {
        func key(_ name: String) {
            output.append(0x22)
            output.append(contentsOf: name.utf8)
            output.append(contentsOf: "\":".utf8)
        }
        func string(_ name: String, _ value: String) {
            key(name)
            output.append(contentsOf: JSONString.quote(value).utf8)
        }
        func time(_ name: String, _ seconds: Int) {
            key(name)
            output.append(0x22)
            UTCInstant.write(seconds, into: &output)
            output.append(0x22)
        }
        func bool(_ name: String, _ value: Bool) {
            key(name)
            output.append(contentsOf: (value ? "true" : "false").utf8)
        }
        output.append(0x7B)
        string("id", departure.id)
        output.append(0x2C)
        key("location")
        output.append(0x7B)
        string("name", departure.locationName)
        if let occupancy = departure.occupancy {
            output.append(0x2C)
            string("occupancy", occupancy)
        }
        output.append(contentsOf: "},".utf8)
        time("departureTime", departure.departureTime)
        output.append(0x2C)
        time("departureTimePlanned", departure.planned)
        if let estimated = departure.estimated {
            output.append(0x2C)
            time("departureTimeEstimated", estimated)
        }
        if let status = departure.status {
            output.append(0x2C)
            string("departureStatus", status)
        }
        output.append(0x2C)
        key("transportation")
        output.append(0x7B)
        string("number", departure.number)
        output.append(0x2C)
        string("disassembledName", departure.disassembledName)
        output.append(0x2C)
        string("description", departure.description)
        output.append(0x2C)
        key("destination")
        output.append(0x7B)
        string("name", departure.destination)
        output.append(contentsOf: "},".utf8)
        key("colour")
        output.append(0x7B)
        string("background", departure.mode.colour)
        output.append(0x2C)
        string("foreground", TransportMode.foreground)
        output.append(0x2C)
        string("text", TransportMode.foreground)
        output.append(contentsOf: "}},".utf8)
        bool("isCancelled", departure.isCancelled)
        output.append(0x2C)
        bool("isAccessible", departure.isAccessible)
        output.append(0x2C)
        bool("isHighFrequency", departure.isHighFrequency)
        output.append(0x7D)
    }
}
