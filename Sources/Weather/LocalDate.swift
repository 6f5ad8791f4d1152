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

    /// The local date at `now` and the moment it ends (the next day's start).
    func today(_ now: Date) -> (date: CalendarDate, until: Date) {
        if let entry = cached.withLock({ $0 }), now >= entry.from, now < entry.until { return (entry.date, entry.until) }
        let date = CalendarDate(now, in: timeZone)
        let entry = (date: date, from: date.start(in: timeZone), until: date.adding(days: 1).start(in: timeZone))
        cached.withLock { $0 = entry }
        return (date, entry.until)
    }
}
