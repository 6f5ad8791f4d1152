import Foundation

/// A date without a time (`2026-11-23`), as services run and forecasts are grouped: always in a named
/// time zone, never in the machine's.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses exactly `YYYY-MM-DD` of a real calendar date; anything else is `nil`.
    public init?(_ text: String) {
        // `YYYY-MM-DD`, read as ten ASCII bytes (no split, no Character walk: a dated request parses one per call).
        var digits = (year: 0, month: 0, day: 0)
        var count = 0
        for (index, byte) in text.utf8.enumerated() {
            count += 1
            if index == 4 || index == 7 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), index < 10 else { return nil }
            let digit = Int(byte - UInt8(ascii: "0"))
            if index < 4 { digits.year = digits.year * 10 + digit } else if index < 7 { digits.month = digits.month * 10 + digit } else {
                digits.day = digits.day * 10 + digit
            }
        }
        guard count == 10 else { return nil }
        let (year, month, day) = digits
        // Reject 2026-02-30 and friends by arithmetic, not a calendar round trip: this runs per request.
        guard (1...12).contains(month), (1...Self.days(inMonth: month, year: year)).contains(day) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The date at `instant` in `timeZone`.
    public init(_ instant: Date, in timeZone: TimeZone) {
        let components = Self.calendar(timeZone).dateComponents([.year, .month, .day], from: instant)
        self.init(year: components.year ?? 1970, month: components.month ?? 1, day: components.day ?? 1)
    }

    /// Days in a month of the proleptic Gregorian calendar.
    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    /// 12:00 UTC of this date (what ZSG expects as `timestamp`; safely inside the date in every European zone).
    public var noonUTC: Date {
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour) = (year, month, day, 12)
        return Self.calendar(TimeZone(identifier: "UTC") ?? .current).date(from: components) ?? Date(timeIntervalSince1970: 0)
    }

    /// The first instant of this date in `timeZone` (local midnight; DST-aware).
    public func start(in timeZone: TimeZone) -> Date {
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        return Self.calendar(timeZone).date(from: components) ?? noonUTC
    }

    /// The date `days` later (earlier when negative), by day-number arithmetic on the proleptic Gregorian
    /// calendar with a year 0. (Foundation's calendar has eras: one day before 0001-01-01 was 0001-12-31 BC,
    /// which printed as a later date — found by fuzz-date.)
    public func adding(days: Int) -> CalendarDate {
        CalendarDate(dayNumber: dayNumber + days)
    }

    /// Days since 1970-01-01 (H. Hinnant's `days_from_civil`).
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number (`civil_from_days`).
    public init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let month = shifted + (shifted < 10 ? 3 : -9)
        self.init(year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: dayOfYear - (153 * shifted + 2) / 5 + 1)
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}

/// The timestamp spellings the contract uses.
public enum Timestamp {
    /// `2026-11-23T02:00:41Z`: ISO 8601, UTC, whole seconds (fractions cut). What Pier writes except where a drop-in
    /// route writes what the service it replaces wrote (``javaScript(_:)``): the weather app parses with
    /// `ISO8601DateFormatter` set to `.withInternetDateTime`, which rejects fractions.
    public static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }

    /// `2026-11-23T02:00:41.512Z`: JavaScript's `Date.prototype.toISOString()` — UTC, milliseconds (cut, as a
    /// JavaScript `Date` holds no finer), `Z`. What the functions Pier replaced for Next Wave wrote in `lastUpdated`;
    /// the app parses it with `[.withInternetDateTime, .withFractionalSeconds]`, which rejects whole seconds.
    public static func javaScript(_ date: Date) -> String {
        fractional(date, digits: 3)
    }

    /// `2026-11-23T02:00:41.512345Z`: UTC, microseconds (what PostgreSQL keeps) — how Supabase's auth server writes
    /// its times; supabase-swift parses them with fractional seconds.
    public static func microseconds(_ date: Date) -> String {
        fractional(date, digits: 6)
    }

    /// UTC with `digits` (at most 6) of the second, cut.
    private static func fractional(_ date: Date, digits: Int) -> String {
        // Whole microseconds first (what PostgreSQL keeps), so that binary fractions (.512 held as .51199…) cut right.
        let microseconds = Int((date.timeIntervalSince1970 * 1_000_000).rounded())
        var perSecond = 1
        for _ in 0..<digits { perSecond *= 10 }
        let units = Int((Double(microseconds) / Double(1_000_000 / perSecond)).rounded(.down))
        let seconds = Int((Double(units) / Double(perSecond)).rounded(.down))
        let fraction = units - seconds * perSecond
        let whole = UTCInstant.string(seconds)
        return String(whole.dropLast()) + "." + String(String(fraction + perSecond).dropFirst()) + "Z"
    }

    /// `23.11.2026, 04:00:02`: Swiss local wall-clock time.
    public static func swissLocal(_ date: Date, timeZone: TimeZone) -> String {
        let parts = CalendarDate.calendar(timeZone).dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%02d.%02d.%04d, %02d:%02d:%02d", parts.day ?? 0, parts.month ?? 0, parts.year ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
    }
}
