import Markup
import ShipsFormat

// The ZSG day-fragment parser on arbitrary bytes. Properties: no crash, and every route it returns has a
// trimmed ship name without line breaks or "Kurs", and a trimmed course number.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let routes = try? ZSGPageParser.parse(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    for route in routes {
        precondition(!route.shipName.contains("\n") && !route.shipName.contains("Kurs"), "ship name \(route.shipName)")
        precondition(route.shipName == route.shipName.trimmingWhitespace, "untrimmed ship name")
        precondition(route.courseNumber == route.courseNumber.trimmingWhitespace, "untrimmed course")
    }
    return 0
}

extension String {
    var trimmingWhitespace: String {
        String(unicodeScalars.drop { $0.properties.isWhitespace }.reversed().drop { $0.properties.isWhitespace }.reversed().map(Character.init))
    }
}
