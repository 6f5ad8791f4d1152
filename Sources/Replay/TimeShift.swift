import Fetching
import Foundation

/// Moves every ISO 8601 UTC timestamp (`2026-11-23T06:00:00Z`) in a document by a number of seconds, so a
/// recorded FMI answer reads as if it had just been fetched.
public enum TimeShift {
    public static func shift(_ document: [UInt8], by seconds: TimeInterval) -> [UInt8] {
        guard seconds != 0 else { return document }
        let formatter = ISO8601DateFormatter()
        var output = document
        var index = 0
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        while index + 20 <= output.count {
            if output[index + 4] == UInt8(ascii: "-"), output[index + 10] == UInt8(ascii: "T"), output[index + 19] == UInt8(ascii: "Z"),
                digits.contains(output[index]), let date = formatter.date(from: String(decoding: output[index..<index + 20], as: UTF8.self))
            {
                output.replaceSubrange(index..<index + 20, with: Array(formatter.string(from: date.addingTimeInterval(seconds)).utf8))
                index += 20
            } else {
                index += 1
            }
        }
        return output
    }

    /// The whole minutes from `then` to `now`, in seconds (TfNSW's departures are planned to the minute).
    public static func minutes(from then: Date, to now: Date) -> TimeInterval {
        ((now.timeIntervalSince1970 - then.timeIntervalSince1970) / 60).rounded(.down) * 60
    }

    /// Moves a transport.opendata.ch-style JSON answer by whole days: every local date-time (`"2026-07-04T10:30…`)
    /// and every epoch `…Timestamp": <seconds>` member, so a recorded stationboard serves another date.
    public static func shift(days: Int, inJSON document: [UInt8]) -> [UInt8] {
        guard days != 0 else { return document }
        var text = String(decoding: document, as: UTF8.self)
        let patterns = [(#""([0-9]{4}-[0-9]{2}-[0-9]{2})T"#, true), (#"Timestamp": ?([0-9]+)"#, false)]
        for (pattern, isDate) in patterns {
            guard let expression = try? NSRegularExpression(pattern: pattern) else { continue }
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                if isDate, let date = CalendarDate(String(text[range])) {
                    text.replaceSubrange(range, with: date.adding(days: days).description)
                } else if !isDate, let seconds = Int(text[range]) {
                    text.replaceSubrange(range, with: String(seconds + days * 86_400))
                }
            }
        }
        return Array(text.utf8)
    }

    /// The whole hours from `then` to `now` (whole hours keep FMI's 10-minute and hourly grids aligned).
    public static func hours(from then: Date, to now: Date) -> TimeInterval {
        ((now.timeIntervalSince1970 - then.timeIntervalSince1970) / 3600).rounded(.down) * 3600
    }

    /// Moves a JSON answer of OpenWeather or Alplakes by `seconds` (a multiple of their 3-hour step): UTC times
    /// written with an offset (`2026-07-04T12:00:00+00:00`, also with `.000`), OpenWeather's `dt_txt`
    /// (`2026-07-04 12:00:00`) and its epoch members `dt`, `sunrise`, `sunset`.
    public static func shift(seconds: Int, inForecastJSON document: [UInt8]) -> [UInt8] {
        guard seconds != 0 else { return document }
        var text = String(decoding: document, as: UTF8.self)
        let patterns = [
            #""([0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]+)?(\+00:00)?""#,
            #""(?:dt|sunrise|sunset)": ?(-?[0-9]+)"#,
        ]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for (index, pattern) in patterns.enumerated() {
            guard let expression = try? NSRegularExpression(pattern: pattern) else { continue }
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                if index == 1 {
                    if let value = Int(text[range]), value > 0 { text.replaceSubrange(range, with: String(value + seconds)) }
                    continue
                }
                let written = String(text[range])
                let separator = written.dropFirst(10).first == "T" ? "T" : " "
                formatter.dateFormat = "yyyy-MM-dd'\(separator)'HH:mm:ss"
                guard let date = formatter.date(from: written) else { continue }
                text.replaceSubrange(range, with: formatter.string(from: date.addingTimeInterval(TimeInterval(seconds))))
            }
        }
        return Array(text.utf8)
    }

    /// Whole 3-hour steps from `then` to `now` (OpenWeather's and the Alplakes fixtures' model step).
    public static func forecastSteps(from then: Date, to now: Date) -> Int {
        Int(((now.timeIntervalSince1970 - then.timeIntervalSince1970) / 10_800).rounded(.down)) * 10_800
    }
}
