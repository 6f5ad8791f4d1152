import Fetching
import Foundation
import HTTPServer

/// The encoded `daily_forecast` of each cell, kept until the cell's forecast or the local date changes: every
/// point in a cell shares it, so a cache hit only encodes the small station and current parts.
final class DailyForecastCache: Sendable {
    private struct Entry {
        var fetchedAt: Date
        var today: CalendarDate
        var json: [UInt8]
    }

    private let entries = BoundedCache<GridCell, Entry>(capacity: 20_000)

    func json(for forecast: Forecast, today: CalendarDate, timeZone: TimeZone) throws -> [UInt8] {
        if let entry = entries[forecast.cell], entry.fetchedAt == forecast.fetchedAt, entry.today == today {
            return entry.json
        }
        let json = try JSONBody.encode(DailyForecast.days(from: forecast.hours, timeZone: timeZone, today: today))
        entries.set(Entry(fetchedAt: forecast.fetchedAt, today: today, json: json), for: forecast.cell)
        return json
    }
}
