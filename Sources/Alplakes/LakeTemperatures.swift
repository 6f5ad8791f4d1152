import Foundation
import HTTPServer
import Parsing

/// `/v1/lake-temperatures`: every lake's surface temperature now and its next 48 hours, in one answer.
public enum LakeTemperatures {
    public static let horizon: TimeInterval = 48 * 3600

    /// The body for `lakes` at `now`, and until when it stays the same (the next step to leave or enter the
    /// 48-hour window, or a minute when nothing will).
    public static func render(_ lakes: [AlplakesLake], order: [String], now: Date) -> (body: [UInt8], until: Date) {
        var until = now.addingTimeInterval(3600)
        var out = "{\"lakes\":["
        let byKey = Dictionary(lakes.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var first = true
        for key in order {
            guard let lake = byKey[key] else { continue }
            if !first { out += "," }
            first = false
            out += "{\"key\":\(JSONString.quote(key)),\"name\":\(JSONString.quote(AlplakesLake.name(of: key))),"
            out += "\"surface_temperature\":\(JSONString.number(lake.profile.surfaceTemperature)),\"at\":\"\(Timestamp.iso8601(lake.profile.time))\","
            out += "\"forecast\":["
            var firstStep = true
            for step in lake.series.steps {
                if step.time < now {
                    continue
                }
                if step.time > now.addingTimeInterval(horizon) {
                    until = min(until, step.time.addingTimeInterval(-horizon))
                    continue
                }
                until = min(until, step.time.addingTimeInterval(1))
                if !firstStep { out += "," }
                firstStep = false
                out += "{\"time\":\"\(Timestamp.iso8601(step.time))\",\"temperature\":\(JSONString.number(step.temperature))}"
            }
            out += "]}"
        }
        let updated = lakes.map(\.fetchedAt).max()
        out += "],\"lastUpdated\":\(updated.map { "\"\(Timestamp.iso8601($0))\"" } ?? "null")}"
        return (Array(out.utf8), max(until, now.addingTimeInterval(1)))
    }
}
