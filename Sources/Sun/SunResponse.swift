import Basics
import Parsing

/// sunrise-sunset.org's `formatted=0` JSON for one ``SunTimes``: times as `2026-07-04T03:33:10+00:00`,
/// `day_length` in seconds, `"status": "OK"`, `"tzid": "UTC"`, in the upstream's member order. Built per request (it
/// costs less than the calculation): the times are written straight into the answer's buffer.
public enum SunResponse {
    public static func body(_ times: SunTimes) -> [UInt8] {
        JSONWriter.make(reservingCapacity: 480) { json in
            json.object { json in
                json.member("results", object: { json in
                    json.key("sunrise")
                    time(times.sunrise, to: &json)
                    json.key("sunset")
                    time(times.sunset, to: &json)
                    json.key("solar_noon")
                    time(times.solarNoon, to: &json)
                    json.member("day_length", times.dayLength)
                    for (name, twilight) in [("civil", times.civilTwilight), ("nautical", times.nauticalTwilight), ("astronomical", times.astronomicalTwilight)] {
                        json.key(name + "_twilight_begin")
                        time(twilight.begin, to: &json)
                        json.key(name + "_twilight_end")
                        time(twilight.end, to: &json)
                    }
                })
                json.member("status", "OK")
                json.member("tzid", "UTC")
            }
        }
    }

    /// `"YYYY-MM-DDTHH:MM:SS+00:00"`, or `null`.
    static func time(_ seconds: Int?, to json: inout JSONWriter) {
        guard let seconds else { return json.null() }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let ofDay = seconds - days * 86_400
        let date = CalendarDate(dayNumber: days)
        json.string(unescaped: { out in
            if date.year < 0 { out.append(UInt8(ascii: "-")) }
            digits(abs(date.year), 4, into: &out)
            out.append(UInt8(ascii: "-"))
            digits(date.month, 2, into: &out)
            out.append(UInt8(ascii: "-"))
            digits(date.day, 2, into: &out)
            out.append(UInt8(ascii: "T"))
            digits(ofDay / 3600, 2, into: &out)
            out.append(UInt8(ascii: ":"))
            digits(ofDay / 60 % 60, 2, into: &out)
            out.append(UInt8(ascii: ":"))
            digits(ofDay % 60, 2, into: &out)
            out += "+00:00".utf8
        })
    }

    private static func digits(_ value: Int, _ count: Int, into out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var value = value
        if value >= divisor * 10 {
            out += Array(String(value / (divisor * 10)).utf8)
            value %= divisor * 10
        }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
