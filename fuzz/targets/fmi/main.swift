import FMIFormat

// The streaming FMI WFS parser on arbitrary bytes. Properties: no crash, no NaN or infinity ever comes out
// as a value (missing is nil), and every series' points are in the order FMI sent them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let series = try? FMIDocumentParser.parse(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    for entry in series {
        for point in entry.points {
            if let value = point.value { precondition(value.isFinite, "value \(value) in \(entry.parameter)") }
        }
    }
    return 0
}
