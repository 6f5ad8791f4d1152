import Foundation

/// Shaped like the Next Wave app's `ForecastResponse` (pfederi/Next-Wave `Next Wave/API/WeatherAPI.swift`):
/// the members it requires, with its types — `wind.deg` an `Int`, `pressure` and `humidity` `Int`s, `gust`
/// optional. Written from the fixture README's table, not copied.
struct AppForecast: Decodable {
    struct Item: Decodable {
        struct Main: Decodable {
            let temp: Double
            let feels_like: Double
            let temp_min: Double
            let temp_max: Double
            let pressure: Int
            let humidity: Int
        }
        struct Weather: Decodable {
            let id: Int
            let main: String
            let description: String
            let icon: String
        }
        struct Wind: Decodable {
            let speed: Double
            let deg: Int
            let gust: Double?
        }
        let dt: Int
        let main: Main
        let weather: [Weather]
        let wind: Wind
        let dt_txt: String
    }
    let list: [Item]
}

/// Pier's `daily` member, as an app that uses it would decode it.
struct PierDaily: Decodable, Equatable {
    struct Day: Decodable, Equatable {
        let date: String
        let temp_min: Double
        let temp_max: Double
        let morning_temp: Double?
        let afternoon_temp: Double?
        let wind_max: Double
        let wind_max_kn: Double
        let gust_max: Double?
        let weather_id: Int
    }
    let cnt: Int
    let daily: [Day]
}
