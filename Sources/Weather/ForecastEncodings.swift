import Foundation
import HTTPServer
import Parsing
import Synchronization

/// A forecast's `daily_forecast` and `hourly_forecast` JSON, encoded once per local date and hour and shared by every
/// answer made from the forecast in that hour — the points of one cell, and those a neighbouring cell stands in for —,
/// so that a new point costs its station and its envelope, not an encoding of 58 entries.
///
/// It belongs to the forecast (a reference its copies share) and so lives and leaves with it in the engine's memory,
/// which charges it up front at ``maximumBytes``: nothing is held beside the engine, and nothing it holds is uncounted.
final class ForecastEncodings: Sendable {
    struct Parts: Sendable {
        var today: CalendarDate
        /// The whole hour (hours since 1970) `hourly` starts at.
        var hour: Int
        var daily: [UInt8]
        var hourly: [UInt8]
    }

    private let held = Mutex<Parts?>(nil)

    /// What the two parts take at most: ``HourlyForecast/count`` entries of at most 240 bytes (130 of members' names and
    /// punctuation, a time of at most 25, seven numbers, a symbol's name of at most 13) and ``DailyForecast/count`` of at
    /// most 140 (77, a date, four numbers, a symbol). Every number is a hundredth or a tenth within `Int16`'s range
    /// (``HourlySeries``, `DailyForecast.tenth`): at most 8 characters, 10 counted.
    static let maximumBytes = HourlyForecast.count * 240 + DailyForecast.count * 140 + 16

    /// The parts for `today` and the whole hour `hour`: the ones held when they are for that date and hour, else made
    /// by `make` (outside the lock: two requests in a new hour may both encode; one result is kept).
    func parts(today: CalendarDate, hour: Int, make: () throws -> (daily: [UInt8], hourly: [UInt8])) rethrows -> (daily: [UInt8], hourly: [UInt8]) {
        if let parts = held.withLock({ $0 }), parts.today == today, parts.hour == hour { return (parts.daily, parts.hourly) }
        let made = try make()
        held.withLock { $0 = Parts(today: today, hour: hour, daily: made.daily, hourly: made.hourly) }
        return made
    }
}

extension Forecast {
    /// The forecast's `daily_forecast` (ten days from `today`) and `hourly_forecast` (48 hours from `now`'s whole hour),
    /// encoded once per date and hour.
    func encoded(today: CalendarDate, now: Date, timeZone: TimeZone) throws -> (daily: [UInt8], hourly: [UInt8]) {
        try encodings.parts(today: today, hour: WeatherAnswerKey.hour(now)) {
            let hours = hours
            let daily = try JSONBody.encode(Array(DailyForecast.days(from: hours, timeZone: timeZone, today: today).prefix(DailyForecast.count)))
            return (daily, try JSONBody.encode(HourlyForecast.hours(from: hours, now: now)))
        }
    }
}
