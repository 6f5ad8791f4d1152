import Foundation
import Parsing

/// One local day of the forecast, as the contract spells it.
///
/// Hours are grouped by their Europe/Helsinki date (so a day is 23 or 25 hours long across a DST change);
/// `high`/`low` are the extreme temperatures, `wind_speed_avg` the mean wind, `precipitation_mm` the sum of
/// the hourly amounts. The day's `symbol` is the one that occurs in most of its hours; a tie goes to the
/// more severe symbol (rain over clouds), so a day with as many rainy as cloudy hours says rain.
public struct DailyForecast: Sendable, Equatable, Encodable {
    public var date: String
    public var high: Double?
    public var low: Double?
    public var symbol: WeatherSymbol?
    public var windSpeedAverage: Double?
    public var precipitation: Double?

    /// The days `daily_forecast` lists (the edited forecast's ten).
    public static let count = 10

    private enum CodingKeys: String, CodingKey {
        case date, high, low, symbol
        case windSpeedAverage = "wind_speed_avg"
        case precipitation = "precipitation_mm"
    }

    /// Missing values are `null`, never left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
        try container.encode(high, forKey: .high)
        try container.encode(low, forKey: .low)
        try container.encode(symbol, forKey: .symbol)
        try container.encode(windSpeedAverage, forKey: .windSpeedAverage)
        try container.encode(precipitation, forKey: .precipitation)
    }

    /// The days from `today` on that the hours cover.
    ///
    /// Local midnights are computed once per day (not per hour: calendar arithmetic is the slow part), and the
    /// sorted hours are cut at them.
    public static func days(from hours: [Forecast.Hour], timeZone: TimeZone, today: CalendarDate) -> [DailyForecast] {
        guard let last = hours.last?.validAt else { return [] }
        var days: [DailyForecast] = []
        var date = today
        var start = date.start(in: timeZone)
        var index = hours.firstIndex { $0.validAt >= start } ?? hours.endIndex
        while index < hours.endIndex, start <= last {
            let next = date.adding(days: 1)
            let end = next.start(in: timeZone)
            var stop = index
            while stop < hours.endIndex, hours[stop].validAt < end { stop += 1 }
            if stop > index { days.append(DailyForecast(date: date, hours: Array(hours[index..<stop]))) }
            (date, start, index) = (next, end, stop)
        }
        return days
    }

    init(date: CalendarDate, hours: [Forecast.Hour]) {
        self.date = date.description
        let temperatures = hours.compactMap(\.temperature)
        high = temperatures.max().map(Self.tenth)
        low = temperatures.min().map(Self.tenth)
        let winds = hours.compactMap(\.windSpeed)
        windSpeedAverage = winds.isEmpty ? nil : Self.tenth(winds.reduce(0, +) / Double(winds.count))
        let amounts = hours.compactMap(\.precipitation)
        precipitation = amounts.isEmpty ? nil : Self.tenth(amounts.reduce(0) { $0 + max(0, $1) })
        var counts: [WeatherSymbol: Int] = [:]
        for hour in hours { if let symbol = WeatherSymbol(weatherSymbol3: hour.symbolCode) { counts[symbol, default: 0] += 1 } }
        symbol = counts.max { ($0.value, $0.key.severity) < ($1.value, $1.key.severity) }?.key
    }

    /// One decimal, as FMI reports them (sums of tenths otherwise show float noise).
    static func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
