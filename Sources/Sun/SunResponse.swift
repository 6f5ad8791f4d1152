import Parsing

/// sunrise-sunset.org's `formatted=0` JSON for one ``SunTimes``: times as `2026-07-04T03:33:10+00:00`,
/// `day_length` in seconds, `"status": "OK"`, `"tzid": "UTC"`. Written by hand, in the upstream's member
/// order: it is built per request and costs less than the calculation.
public enum SunResponse {
    public static func body(_ times: SunTimes) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(480)
        out += Array(#"{"results":{"sunrise":"#.utf8)
        time(times.sunrise, into: &out)
        out += Array(#","sunset":"#.utf8)
        time(times.sunset, into: &out)
        out += Array(#","solar_noon":"#.utf8)
        time(times.solarNoon, into: &out)
        out += Array(#","day_length":"#.utf8)
        out += Array(String(times.dayLength).utf8)
        let twilights: [(String, (begin: Int?, end: Int?))] = [
            ("civil", times.civilTwilight), ("nautical", times.nauticalTwilight), ("astronomical", times.astronomicalTwilight),
        ]
        for (name, twilight) in twilights {
            out += Array(#","\#(name)_twilight_begin":"#.utf8)
            time(twilight.begin, into: &out)
            out += Array(#","\#(name)_twilight_end":"#.utf8)
            time(twilight.end, into: &out)
        }
        out += Array(#"},"status":"OK","tzid":"UTC"}"#.utf8)
        return out
    }

    /// `"YYYY-MM-DDTHH:MM:SS+00:00"`, or `null`.
    static func time(_ seconds: Int?, into out: inout [UInt8]) {
        guard let seconds else {
            out += Array("null".utf8)
            return
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let ofDay = seconds - days * 86_400
        let date = CalendarDate(dayNumber: days)
        out.append(UInt8(ascii: "\""))
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
        out += Array("+00:00\"".utf8)
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
