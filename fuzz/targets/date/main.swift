import Parsing

// CalendarDate parsing (every `?date=`). Property: a date that parses prints back as exactly the input, and
// its neighbours are real dates that print in the same form.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let date = CalendarDate(text) {
        precondition(date.description == text, "\(text) printed as \(date)")
        // Neighbours within the years that print in four digits (0000–9999).
        guard (1...9998).contains(date.year) else { return 0 }
        for days in [-1, 1, 31] {
            let other = date.adding(days: days)
            precondition(CalendarDate(other.description) == other, "\(other) does not parse back")
            precondition((days > 0) == (date < other), "order")
        }
    }
    return 0
}
