import Basics
import Parsing

/// The app's `DepartureResponse` written from departures: `{"stopEvents": [ … ]}` with every key the app
/// requires on every event (one event missing one would fail the app's whole list).
public enum DepartureList {
    /// The departures after `now` (those that have left are dropped) of `mode` (all when `nil`), in their
    /// order (sorted by departure time).
    public static func json(_ departures: [Departure], mode: TransportMode?, after now: Int) -> [UInt8] {
        JSONWriter.make(reservingCapacity: 64 + departures.count * 560) { json in
            json.object { json in
                json.member("stopEvents", array: { json in
                    for departure in departures where departure.departureTime > now && (mode == nil || departure.mode == mode) {
                        write(departure, to: &json)
                    }
                })
            }
        }
    }

    /// When the first departure of `mode` (any when `nil`) after `now` leaves: the answer made at `now` holds until then.
    public static func nextDeparture(_ departures: [Departure], mode: TransportMode?, after now: Int) -> Int? {
        departures.lazy.filter { $0.departureTime > now && (mode == nil || $0.mode == mode) }.map(\.departureTime).min()
    }

    private static func write(_ departure: Departure, to json: inout JSONWriter) {
        json.object { json in
            json.member("id", departure.id)
            json.member("location", object: { json in
                json.member("name", departure.locationName)
                if let occupancy = departure.occupancy { json.member("occupancy", occupancy) }
            })
            json.key("departureTime")
            time(departure.departureTime, to: &json)
            json.key("departureTimePlanned")
            time(departure.planned, to: &json)
            if let estimated = departure.estimated {
                json.key("departureTimeEstimated")
                time(estimated, to: &json)
            }
            if let status = departure.status { json.member("departureStatus", status) }
            json.member("transportation", object: { json in
                json.member("number", departure.number)
                json.member("disassembledName", departure.disassembledName)
                json.member("description", departure.description)
                json.member("destination", object: { $0.member("name", departure.destination) })
                json.member("colour", object: { json in
                    json.member("background", departure.mode.colour)
                    json.member("foreground", TransportMode.foreground)
                    json.member("text", TransportMode.foreground)
                })
            })
            json.member("isCancelled", departure.isCancelled)
            json.member("isAccessible", departure.isAccessible)
            json.member("isHighFrequency", departure.isHighFrequency)
        }
    }

    /// `"2026-07-05T22:13:00Z"`, straight into the buffer.
    private static func time(_ seconds: Int, to json: inout JSONWriter) {
        json.string(unescaped: { UTCInstant.write(seconds, into: &$0) })
    }
}
