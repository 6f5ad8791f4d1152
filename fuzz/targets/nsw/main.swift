import Foundation
import NSWDeparturesFormat
import Parsing

// TfNSW departure_mon answers (the strict JSON scanner and the departure monitor) on arbitrary bytes. Properties:
// no crash; an accepted answer's departures are sorted by departure time with unique ids, survive the store's
// encoding unchanged, and render to JSON that holds one event per departure, each with every key the app requires.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let monitor = try? DepartureMonitor(parsing: Array(UnsafeBufferPointer(start: data, count: size))),
        case .departures(let departures) = monitor.content
    else { return 0 }
    let times = departures.map(\.departureTime)
    precondition(times == times.sorted(), "not sorted by departure time")
    precondition(Set(departures.map(\.id)).count == departures.count, "ids repeat")
    if let encoded = try? JSONEncoder().encode(departures) {
        precondition((try? JSONDecoder().decode([Departure].self, from: encoded)) == departures, "the stored form changed")
    }
    let rendered = DepartureList.json(departures, mode: nil, after: Int.min)
    guard let root = try? JSONScanner.parse(rendered), let events = root["stopEvents"]?.elements else {
        preconditionFailure("the rendered answer is not JSON with stopEvents")
    }
    precondition(events.count == departures.count, "events lost")
    for event in events {
        for key in ["id", "departureTime", "departureTimePlanned"] { precondition(event[key]?.string != nil, "\(key) missing") }
        precondition(event["location"]?["name"]?.string != nil, "location.name missing")
        let transportation = event["transportation"]
        for key in ["number", "disassembledName", "description"] { precondition(transportation?[key]?.string != nil, "\(key) missing") }
        precondition(transportation?["destination"]?["name"]?.string != nil, "destination.name missing")
        precondition(transportation?["colour"]?["background"]?.string != nil, "colour missing")
        for key in ["isCancelled", "isAccessible"] {
            guard case .bool? = event[key]?.kind else { preconditionFailure("\(key) is not a boolean") }
        }
    }
    return 0
}
