import Foundation
import Parsing

/// Moves the times in a recorded answer, so that it reads as if it had just been fetched (the demo) or as the
/// answer for another day (a replay of last week's recordings). Each upstream's ``ReplayMatcher`` and test double
/// picks the form its answers write.
public enum TimeShift {
    /// Every ISO 8601 UTC timestamp (`2026-11-23T06:00:00Z`) in `document`, moved by `seconds`.
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

    /// Every ISO 8601 local time with its offset written (`2026-11-23T14:00:00+02:00`, CAP's form) in `document`,
    /// moved by `seconds` and written with the same offset (the instant moves; the offset stays as recorded).
    public static func shift(offsetTimes document: [UInt8], by seconds: TimeInterval) -> [UInt8] {
        guard seconds != 0 else { return document }
        var output = document
        var index = 0
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxx"
        while index + 25 <= output.count {
            let sign = output[index + 19]
            if digits.contains(output[index]), output[index + 4] == UInt8(ascii: "-"), output[index + 10] == UInt8(ascii: "T"),
                sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), output[index + 22] == UInt8(ascii: ":"),
                let date = formatter.date(from: String(decoding: output[index..<index + 25], as: UTF8.self)),
                let offset = Int(String(decoding: output[index + 20..<index + 22], as: UTF8.self)),
                let offsetMinutes = Int(String(decoding: output[index + 23..<index + 25], as: UTF8.self))
            {
                let offsetSeconds = (offset * 3600 + offsetMinutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
                formatter.timeZone = TimeZone(secondsFromGMT: offsetSeconds)
                output.replaceSubrange(index..<index + 25, with: Array(formatter.string(from: date.addingTimeInterval(seconds)).utf8))
                index += 25
            } else {
                index += 1
            }
        }
        return output
    }

    /// The whole minutes from `then` to `now`, in seconds (for answers planned to the minute).
    public static func minutes(from then: Date, to now: Date) -> TimeInterval {
        ((now.timeIntervalSince1970 - then.timeIntervalSince1970) / 60).rounded(.down) * 60
    }

    /// Moves a JSON answer by whole days: every local date-time (`"2026-07-04T10:30…`) and every epoch
    /// `…Timestamp": <seconds>` member, so a recorded timetable serves another date.
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

    /// The whole hours from `then` to `now` (whole hours keep 10-minute and hourly grids aligned).
    public static func hours(from then: Date, to now: Date) -> TimeInterval {
        ((now.timeIntervalSince1970 - then.timeIntervalSince1970) / 3600).rounded(.down) * 3600
    }

    /// Moves a JSON forecast by `seconds` (a multiple of its model step): UTC times written as strings, with or
    /// without an offset (`2026-07-04T12:00:00+00:00`, also with `.000`; `2026-07-04 12:00:00`), and the epoch
    /// seconds of the members named `epochMembers`.
    public static func shift(seconds: Int, inForecastJSON document: [UInt8], epochMembers: [String] = []) -> [UInt8] {
        guard seconds != 0 else { return document }
        var text = String(decoding: document, as: UTF8.self)
        let patterns = [
            #""([0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]+)?(\+00:00)?""#,
            epochMembers.isEmpty ? "" : #""(?:"# + epochMembers.joined(separator: "|") + #")": ?(-?[0-9]+)"#,
        ]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for (index, pattern) in patterns.enumerated() {
            guard !pattern.isEmpty, let expression = try? NSRegularExpression(pattern: pattern) else { continue }
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

    /// Whole steps of `step` seconds from `then` to `now`, in seconds (a model's step: forecasts keep their grid).
    public static func steps(of step: Int, from then: Date, to now: Date) -> Int {
        Int(((now.timeIntervalSince1970 - then.timeIntervalSince1970) / Double(step)).rounded(.down)) * step
    }
}
