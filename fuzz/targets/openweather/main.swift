import LakeWeatherFormat

// OpenWeather forecasts (the strict JSON scanner and the forecast document) on arbitrary bytes. Properties: no
// crash; an accepted answer renders (slots the app cannot decode left out, `daily` added) to text that is
// accepted again with the same slots and nothing left to drop.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let document = try? ForecastDocument(parsing: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    let days = DailySummary.days(document.slots, utcOffset: document.utcOffset)
    let rendered = document.rendered(daily: DailySummary.json(days))
    guard let again = try? ForecastDocument(parsing: rendered) else { preconditionFailure("rendered text is not accepted") }
    precondition(again.dropped.isEmpty, "the rendered text still has slots to drop")
    precondition(again.slots.map(\.time) == document.slots.map(\.time), "slots changed")
    precondition(DailySummary.days(again.slots, utcOffset: again.utcOffset) == days, "the daily summary changed")
    return 0
}
