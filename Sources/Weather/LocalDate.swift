import Foundation
import Parsing
import Synchronization

/// Today's date in a time zone, computed once per day instead of once per request (calendar arithmetic is
/// the slowest part of a cached answer).
final class LocalDate: Sendable {
    private let timeZone: TimeZone
    private let cached = Mutex<(date: CalendarDate, from: Date, until: Date)?>(nil)

    init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    func today(_ now: Date) -> CalendarDate {
        if let entry = cached.withLock({ $0 }), now >= entry.from, now < entry.until { return entry.date }
        let date = CalendarDate(now, in: timeZone)
        cached.withLock { $0 = (date, date.start(in: timeZone), date.adding(days: 1).start(in: timeZone)) }
        return date
    }
}
