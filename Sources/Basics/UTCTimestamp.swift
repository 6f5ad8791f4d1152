import Glibc

/// `YYYY-MM-DDTHH:MM:SS.fffZ` for a UTC second and its fraction, without Foundation's formatters (slow, and not
/// thread-safe on every platform): log lines and PostgreSQL parameters write it on every call.
public enum UTCTimestamp {
    /// `seconds` since 1970 with `fraction` written in `digits` digits (3: milliseconds, 6: microseconds).
    public static func format(seconds: Int, fraction: Int, digits: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(fraction, digits))Z"
    }
}
