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

    /// The whole hours from `then` to `now` (whole hours keep FMI's 10-minute and hourly grids aligned).
    public static func hours(from then: Date, to now: Date) -> TimeInterval {
        ((now.timeIntervalSince1970 - then.timeIntervalSince1970) / 3600).rounded(.down) * 3600
    }
}
