import Markup
import MeteoNewsFormat

// The MeteoNews lake-table parser on arbitrary bytes. Properties: no crash, temperatures are finite and
// plausible for water, names are non-empty.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let lakes = try? MeteoNewsPageParser.parse(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    for lake in lakes {
        precondition(!lake.name.isEmpty, "a lake without a name")
        if let temperature = lake.temperature { precondition(temperature.isFinite, "temperature \(temperature)") }
    }
    return 0
}
