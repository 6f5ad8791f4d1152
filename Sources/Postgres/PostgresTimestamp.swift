import Foundation
import Glibc
import Parsing

/// Text conversions for `timestamptz` and `date`, in the ISO style the connection sets (`DateStyle=ISO`,
/// `TimeZone=UTC`), without DateFormatter (slow, and not thread-safe on every platform).
enum PostgresTimestamp {
    static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = Int(interval.rounded(.down))
        let micros = Int(((interval - interval.rounded(.down)) * 1_000_000).rounded())
        if micros >= 1_000_000 { seconds += 1 }
        return UTCInstant.string(seconds, fraction: micros % 1_000_000, digits: 6)
    }

    /// Parses `2026-11-23 07:33:07.123456+00`, `2026-11-23 07:33:07+05:30` or a bare date `2026-11-23`.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 10, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        var fraction = 0.0
        var offsetSeconds = 0
        if bytes.count > 10 {
            guard bytes.count >= 19, let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
            parts.tm_hour = Int32(hour)
            parts.tm_min = Int32(minute)
            parts.tm_sec = Int32(second)
            var index = 19
            if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
                index += 1
                var scale = 0.1
                while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                    fraction += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
            }
            if index < bytes.count {
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"), let hours = number((index + 1)..<(index + 3))
                else { return nil }
                var minutes = 0
                if index + 6 <= bytes.count, bytes[index + 3] == UInt8(ascii: ":"), let parsed = number((index + 4)..<(index + 6)) { minutes = parsed }
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            }
        }
        let epoch = timegm(&parts)
        return Date(timeIntervalSince1970: Double(epoch - offsetSeconds) + fraction)
    }
}
