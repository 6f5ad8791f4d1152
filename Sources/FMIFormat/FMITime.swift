import Foundation
import Parsing

/// FMI's timestamps (`2026-11-23T05:10:00Z`), read without a formatter: a document holds thousands of them.
public enum FMITime {
    /// Parses exactly `YYYY-MM-DDTHH:MM:SSZ` (UTC, FMI's only form); anything else is `nil`.
    public static func parse(_ text: String) -> Date? {
        let bytes = text.utf8
        guard bytes.count == 20, bytes.last == 0x5A, bytes.dropFirst(10).first == 0x54, let seconds = UTCInstant.parse(text) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The whole UTC hour `date` is in: where FMI's hourly forecast steps fall and `hourly_forecast` starts.
    public static func wholeHour(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 3600).rounded(.down) * 3600)
    }
}
