import Foundation

/// The times Alplakes uses: `yyyyMMddHHmm` (UTC) in its URLs, and ISO 8601 with an offset in its answers —
/// with or without fractional seconds (the upstream writes `datetime.isoformat()`, which leaves them out for
/// whole seconds; the app's recorded answers carry `.000`). Both forms are read.
public enum AlplakesTime {
    /// `202607041207` → that minute, UTC; anything but 12 digits of a real date and time is `nil`.
    public static func path(_ text: some StringProtocol) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 12, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(bytes[$1] - 0x30) } }
        var components = DateComponents()
        (components.year, components.month, components.day) = (number(0..<4), number(4..<6), number(6..<8))
        (components.hour, components.minute) = (number(8..<10), number(10..<12))
        guard let month = components.month, (1...12).contains(month), let day = components.day, (1...31).contains(day),
            let hour = components.hour, hour < 24, let minute = components.minute, minute < 60
        else { return nil }
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    /// The URL form of `date`.
    public static func path(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d%02d%02d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }

    /// An answer's time, `2026-07-04T12:00:00+00:00` or `2026-07-04T15:00:00.000+00:00` (any offset, or `Z`).
    public static func answer(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar
    }()
}
