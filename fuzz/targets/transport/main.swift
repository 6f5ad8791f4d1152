import StationboardFormat

// transport.opendata.ch answers (the strict JSON scanner and the stationboard document) on arbitrary bytes.
// Properties: no crash; an accepted answer renders to text that is accepted again with the same journeys, each
// now carrying exactly one `shipName`; and rendering is idempotent (rendering the rendered text with the same
// names gives the same bytes).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let document = try? StationboardDocument(parsing: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    let name: (StationboardDocument.Journey) -> String? = { $0.course.map { "MS \"\($0)\"" } }
    let rendered = document.rendered(ship: name)
    guard let again = try? StationboardDocument(parsing: rendered) else { preconditionFailure("rendered text is not accepted") }
    precondition(again.journeys.count == document.journeys.count, "journeys changed")
    precondition(again.stationID == document.stationID, "station changed")
    for (before, after) in zip(document.journeys, again.journeys) {
        precondition(before.course == after.course && before.operatorName == after.operatorName && before.date == after.date, "journey changed")
    }
    precondition(again.rendered(ship: name) == rendered, "rendering is not idempotent")
    return 0
}
