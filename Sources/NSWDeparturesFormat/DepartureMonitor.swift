import Parsing

/// A `departure_mon` answer (rapidJSON) read into ``Departure``s by the contract's mapping, or the answer for
/// a stop the service does not know. Events the app could not be given whole (no planned time, no
/// `transportation`) are left out and named in ``dropped``; an answer where nothing is left, or that is not a
/// departure monitor at all, is a ``Problem`` (the answer is logged and captured, never stored).
public struct DepartureMonitor: Sendable {
    public typealias Problem = DocumentProblem<DepartureMonitor>

    public enum Content: Sendable, Equatable {
        /// Sorted by departure time.
        case departures([Departure])
        /// No `stopEvents` and no single matched location, or the `-2000` "stop invalid" message.
        case unknownStop
    }

    public let content: Content
    /// Why each event left out was (`no departureTimePlanned`, …).
    public let dropped: [String]

    /// The message code `departure_mon` answers for a stop id it cannot resolve (`STOP_INVALID`).
    static let stopInvalid = -2000
    static let cancellationMarkers: Set<String> = ["TRIP_CANCELLED", "STOP_CANCELLED"]

    public init(parsing body: [UInt8]) throws(Problem) {
        let root: JSONNode
        do { root = try JSONScanner.parse(body) } catch { throw .notJSON(error.description) }
        guard root.isObject else { throw .unexpectedShape("not an object") }
        let locations = root["locations"]?.elements
        let messages = root["systemMessages"]?.elements ?? []
        guard root["stopEvents"] != nil || locations != nil || root["systemMessages"] != nil else {
            throw .unexpectedShape("none of stopEvents, locations, systemMessages")
        }
        let stopInvalid = messages.contains { $0["code"]?.integer(in: body) == Self.stopInvalid }
        guard let events = root["stopEvents"] else {
            if stopInvalid || locations?.count != 1 {
                (content, dropped) = (.unknownStop, [])
            } else {
                (content, dropped) = (.departures([]), [])
            }
            return
        }
        guard let elements = events.elements else { throw .unexpectedShape("stopEvents is not an array") }
        let stopName = locations?.first?["name"]?.string
        var departures: [Departure] = []
        var dropped: [String] = []
        var ids: Set<String> = []
        for element in elements {
            switch Self.departure(element, in: body, stopName: stopName) {
            case .success(var departure):
                // Ids identify an event within an answer (the app's `Identifiable`): a repeated one gets a suffix.
                if ids.contains(departure.id) {
                    var suffix = 2
                    while ids.contains("\(departure.id)#\(suffix)") { suffix += 1 }
                    departure.id = "\(departure.id)#\(suffix)"
                }
                ids.insert(departure.id)
                departures.append(departure)
            case .failure(let reason):
                dropped.append(reason.text)
            }
        }
        if departures.isEmpty, let first = dropped.first {
            throw .unexpectedShape("no usable stop event (\(dropped.count) left out: \(first))")
        }
        departures.sort { ($0.departureTime, $0.planned, $0.id) < ($1.departureTime, $1.planned, $1.id) }
        content = .departures(departures)
        self.dropped = dropped
    }

    struct Reason: Error {
        var text: String
    }

    private static func departure(_ event: JSONNode, in body: [UInt8], stopName: String?) -> Result<Departure, Reason> {
        guard event.isObject else { return .failure(Reason(text: "an event that is not an object")) }
        guard let plannedText = event["departureTimePlanned"]?.string else { return .failure(Reason(text: "no departureTimePlanned")) }
        guard let planned = UTCInstant.parse(plannedText) else {
            return .failure(Reason(text: "departureTimePlanned '\(plannedText.prefix(40))' is not an ISO 8601 instant"))
        }
        guard let transportation = event["transportation"], transportation.isObject else { return .failure(Reason(text: "no transportation")) }
        let estimated = event["departureTimeEstimated"]?.string.flatMap(UTCInstant.parse)
        let properties = event["properties"]
        let location = event["location"]
        let short = transportation["disassembledName"]?.string
        let number = transportation["number"]?.string ?? short ?? transportation["name"]?.string ?? ""
        let line = transportation["id"]?.string ?? number
        let realtimeID = properties?["RealtimeTripId"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let statuses = event["realtimeStatus"]?.elements?.compactMap(\.string) ?? []
        var cancelled = statuses.contains { cancellationMarkers.contains($0) }
        if case .bool(true)? = event["isCancelled"]?.kind { cancelled = true }
        var accessible = properties?["WheelchairAccess"]?.string == "true"
        if case .bool(true)? = properties?["WheelchairAccess"]?.kind { accessible = true }
        return .success(
            Departure(
                id: realtimeID ?? "\(line)@\(UTCInstant.string(planned))",
                locationName: location?["name"]?.string ?? location?["disassembledName"]?.string ?? stopName ?? "",
                occupancy: location?["properties"]?["occupancy"]?.string,
                planned: planned, estimated: estimated, number: number, disassembledName: short ?? number,
                description: transportation["description"]?.string ?? "",
                destination: transportation["destination"]?["name"]?.string ?? "",
                mode: TransportMode(productClass: transportation["product"]?["class"]?.integer(in: body)),
                isCancelled: cancelled, isAccessible: accessible,
                isHighFrequency: transportation["properties"]?["FrequencyLine"]?.string == "1"))
    }
}

extension DepartureMonitor: NamedDocument {
    public static var documentName: String { "the departure monitor answer" }
}
