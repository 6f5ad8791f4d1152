import Foundation

/// RFC 9110's IMF-fixdate (`Mon, 20 Jul 2020 12:16:23 GMT`), the form of `Expires`, `Last-Modified` and `Retry-After`.
public enum HTTPDate {
    public static func parse(_ text: String) -> Date? {
        formatter().date(from: text.trimmingCharacters(in: .whitespaces))
    }

    public static func format(_ date: Date) -> String {
        formatter().string(from: date)
    }

    /// A new formatter per use: `DateFormatter` is not safe to share across threads.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }
}
