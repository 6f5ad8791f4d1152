import FMIFormat
import Foundation
import Parsing

/// One hour of `/v1/weather`'s `hourly_forecast`: the point's forecast from the current hour on, as the contract
/// spells it. Missing values are `null`; `feels_like` is FMI's own where it sent one, else computed from the
/// temperature, wind and humidity (``FeelsLike``), as for the current conditions.
public struct HourlyForecast: Sendable, Equatable, Encodable {
    public var time: String
    public var temperature: Double?
    public var feelsLike: Double?
    public var windSpeed: Double?
    public var windDirection: Double?
    public var windGust: Double?
    public var humidity: Double?
    public var precipitation: Double?
    public var symbol: WeatherSymbol?

    /// The hours `hourly_forecast` lists.
    public static let count = 48

    private enum CodingKeys: String, CodingKey {
        case time, temperature, humidity, symbol
        case feelsLike = "feels_like"
        case windSpeed = "wind_speed"
        case windDirection = "wind_direction"
        case windGust = "wind_gust"
        case precipitation = "precipitation_mm"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time, forKey: .time)
        try container.encode(temperature, forKey: .temperature)
        try container.encode(feelsLike, forKey: .feelsLike)
        try container.encode(windSpeed, forKey: .windSpeed)
        try container.encode(windDirection, forKey: .windDirection)
        try container.encode(windGust, forKey: .windGust)
        try container.encode(humidity, forKey: .humidity)
        try container.encode(precipitation, forKey: .precipitation)
        try container.encode(symbol, forKey: .symbol)
    }

    /// The hours of the ``count`` hours from the whole hour `now` is in.
    public static func hours(from hours: [Forecast.Hour], now: Date) -> [HourlyForecast] {
        let start = FMITime.wholeHour(now)
        // One entry an hour: a source whose hourly part ends sooner (MET Norway's turns six-hourly) gives fewer.
        let end = start.addingTimeInterval(TimeInterval(count * 3600))
        return Array(hours.lazy.filter { $0.validAt >= start && $0.validAt < end }.prefix(count).map(HourlyForecast.init))
    }

    init(_ hour: Forecast.Hour) {
        time = Timestamp.iso8601(hour.validAt)
        temperature = hour.temperature
        feelsLike = hour.feelsLike
            ?? FeelsLike.temperature(celsius: hour.temperature, windSpeed: hour.windSpeed, humidity: hour.humidity).map(DailyForecast.tenth)
        windSpeed = hour.windSpeed
        windDirection = hour.windDirection
        windGust = hour.windGust
        humidity = hour.humidity
        precipitation = hour.precipitation.map { max(0, $0) }
        symbol = WeatherSymbol(weatherSymbol3: hour.symbolCode)
    }
}
