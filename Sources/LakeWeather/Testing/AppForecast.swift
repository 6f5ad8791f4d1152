import Foundation

/// Shaped like the Next Wave app's `ForecastResponse` (pfederi/Next-Wave `Next Wave/API/WeatherAPI.swift`):
/// the members it requires, with its types — `wind.deg` an `Int`, `pressure` and `humidity` `Int`s, `gust`
/// optional. Written from the fixture README's table, not copied.
public struct AppForecast: Decodable, Sendable {
    public struct Item: Decodable, Sendable {
        public struct Main: Decodable, Sendable {
            public let temp: Double
            public let feels_like: Double
            public let temp_min: Double
            public let temp_max: Double
            public let pressure: Int
            public let humidity: Int
        }
        public struct Weather: Decodable, Sendable {
            public let id: Int
            public let main: String
            public let description: String
            public let icon: String
        }
        public struct Wind: Decodable, Sendable {
            public let speed: Double
            public let deg: Int
            public let gust: Double?
        }
        public let dt: Int
        public let main: Main
        public let weather: [Weather]
        public let wind: Wind
        public let dt_txt: String
    }
    public let list: [Item]
}

/// Pier's `daily` member, as an app that uses it would decode it.
public struct PierDaily: Decodable, Equatable, Sendable {
    public struct Day: Decodable, Equatable, Sendable {
        public let date: String
        public let temp_min: Double
        public let temp_max: Double
        public let morning_temp: Double?
        public let afternoon_temp: Double?
        public let wind_max: Double
        public let wind_max_kn: Double
        public let gust_max: Double?
        public let weather_id: Int
    }
    public let cnt: Int
    public let daily: [Day]
}
