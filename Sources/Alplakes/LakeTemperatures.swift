import Basics
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
        let byKey = Dictionary(lakes.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let body = JSONWriter.make { json in
            json.object { json in
                json.member("lakes", array: { json in
                    for key in order {
                        guard let lake = byKey[key] else { continue }
                        json.object { json in
                            json.member("key", key)
                            json.member("name", AlplakesLake.name(of: key))
                            json.member("surface_temperature", lake.profile.surfaceTemperature)
                            json.member("at", Timestamp.iso8601(lake.profile.time))
                            json.member("forecast", array: { json in
                                for step in lake.series.steps {
                                    if step.time < now {
                                        continue
                                    }
                                    if step.time > now.addingTimeInterval(horizon) {
                                        until = min(until, step.time.addingTimeInterval(-horizon))
                                        continue
                                    }
                                    until = min(until, step.time.addingTimeInterval(1))
                                    json.object { json in
                                        json.member("time", Timestamp.iso8601(step.time))
                                        json.member("temperature", step.temperature)
                                    }
                                }
                            })
                        }
                    }
                })
                json.member("lastUpdated", lakes.map(\.fetchedAt).max().map(Timestamp.iso8601))
            }
        }
        return (body, max(until, now.addingTimeInterval(1)))
    }
}
