import METNorwayFormat

// MET Norway's Locationforecast reader on arbitrary bytes. Properties: no crash; a forecast has steps in strictly
// increasing time; every value is finite, precipitation never negative; a period is one or six hours; a symbol is a
// base name (no `_day`/`_night`/`_polartwilight`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let forecast = try? METNorwayReader.read(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    precondition(!forecast.steps.isEmpty, "a forecast without steps")
    precondition(zip(forecast.steps, forecast.steps.dropFirst()).allSatisfy { $0.time < $1.time }, "steps out of order or repeated")
    for step in forecast.steps {
        for value in [step.temperature, step.windSpeed, step.windDirection, step.humidity, step.pressure, step.precipitation] {
            precondition(value?.isFinite ?? true, "a value that is not finite")
        }
        precondition((step.precipitation ?? 0) >= 0, "negative precipitation")
        precondition(step.periodHours == nil || step.periodHours == 1 || step.periodHours == 6, "period \(String(describing: step.periodHours))")
        if let symbol = step.symbol {
            precondition(!symbol.hasSuffix("_day") && !symbol.hasSuffix("_night") && !symbol.hasSuffix("_polartwilight"), "symbol \(symbol)")
        }
    }
    return 0
}
