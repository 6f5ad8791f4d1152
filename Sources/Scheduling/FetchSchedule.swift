import Foundation

/// When a source is fetched after a success. Failures are retried by ``RetryPolicy`` instead.
public enum FetchSchedule: Sendable, Equatable {
    /// Again `interval` after the last success.
    case every(Duration)
    /// Once a day at a local wall-clock time (ZSG publishes the next days overnight).
    case daily(hour: Int, minute: Int, timeZone: TimeZone)

    /// How old the data may be before `/health` calls the source stale: one and a half intervals, so a
    /// run that is retrying has time to succeed before operators are alarmed.
    public var staleAfter: Duration { interval * 3 / 2 }

    /// The usual time between two successes.
    public var interval: Duration {
        switch self {
        case let .every(duration): duration
        case .daily: .seconds(86_400)
        }
    }

    /// When the next run is due. `now` when there was no success yet or a scheduled run was missed.
    public func nextRun(after lastSuccess: Date?, now: Date) -> Date {
        guard let lastSuccess else { return now }
        switch self {
        case let .every(duration):
            return max(now, lastSuccess.addingTimeInterval(duration.seconds))
        case .daily:
            let previous = previousOccurrence(atOrBefore: now)
            if lastSuccess < previous { return now }
            return nextOccurrence(after: now)
        }
    }

    /// The last scheduled daily time at or before `date`.
    func previousOccurrence(atOrBefore date: Date) -> Date {
        guard case let .daily(hour, minute, timeZone) = self else { return date }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: date) ?? date
        if today <= date { return today }
        let yesterday = calendar.date(byAdding: .day, value: -1, to: date) ?? date
        return calendar.date(bySettingHour: hour, minute: minute, second: 0, of: yesterday) ?? date
    }

    /// The first scheduled daily time after `date`.
    func nextOccurrence(after date: Date) -> Date {
        guard case let .daily(hour, minute, timeZone) = self else { return date }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: date) ?? date
        if today > date { return today }
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: date) ?? date
        return calendar.date(bySettingHour: hour, minute: minute, second: 0, of: tomorrow) ?? date
    }
}

/// Exponential backoff after failed runs: `initial`, doubled per further failure, at most `maximum`.
public struct RetryPolicy: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The pause after `failures` consecutive failures (1 → `initial`).
    public func delay(afterFailures failures: Int) -> TimeInterval {
        let exponent = Double(min(max(failures - 1, 0), 30))
        return min(initial.seconds * pow(2, exponent), maximum.seconds)
    }
}
