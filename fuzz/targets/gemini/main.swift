import CruiseImportFormat

// Gemini's answer envelope (GeminiAnswer) and the cruise the model wrote (ExtractedCruise), both upstream input.
// Properties: a cruise that is accepted, written as the app's JSON, reads back to the same cruise; nothing accepted
// breaks its bounds (at most 100 ports, every date and time of its form). The bytes are tried as an envelope and as the
// model's own text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var texts = [String(decoding: bytes, as: UTF8.self)]
    if case .text(let text, _)? = try? GeminiAnswer(bytes) { texts.append(text) }
    for text in texts {
        guard let cruise = try? ExtractedCruise(modelJSON: text) else { continue }
        precondition(cruise.ports.count <= ExtractedCruise.maximumPorts, "more ports than the bound")
        for port in cruise.ports {
            precondition(!port.name.isEmpty, "a port without a name")
            for time in [port.arrivalTime, port.departureTime] { precondition(time.map { $0.utf8.count == 5 } ?? true, "a time not HH:MM") }
        }
        guard let again = try? ExtractedCruise(modelJSON: cruise.json) else { preconditionFailure("the app's JSON does not read back") }
        precondition(again == cruise, "the cruise changed on the way back")
    }
    return 0
}
