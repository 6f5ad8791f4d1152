import Basics
import Foundation
import HTTPServer
import Parsing

/// The body of `GET /v1/weather` (contract: docs/api.md). Missing values are `null`.
public struct WeatherResponse: Sendable {
    public struct Station: Sendable, Encodable {
        public var name: String
        public var distanceKilometres: Double

        private enum CodingKeys: String, CodingKey {
            case name
            case distanceKilometres = "distance_km"
        }
    }

    public struct Current: Sendable, Encodable {
        public var temperature: Double?
        public var feelsLike: Double?
        public var windSpeed: Double?
        public var windDirection: Double?
        public var humidity: Double?
        public var pressure: Double?
        public var symbol: WeatherSymbol?
        public var observedAt: String

        private enum CodingKeys: String, CodingKey {
            case temperature, humidity, pressure, symbol
            case feelsLike = "feels_like"
            case windSpeed = "wind_speed"
            case windDirection = "wind_direction"
            case observedAt = "observed_at"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(temperature, forKey: .temperature)
            try container.encode(feelsLike, forKey: .feelsLike)
            try container.encode(windSpeed, forKey: .windSpeed)
            try container.encode(windDirection, forKey: .windDirection)
            try container.encode(humidity, forKey: .humidity)
            try container.encode(pressure, forKey: .pressure)
            try container.encode(symbol, forKey: .symbol)
            try container.encode(observedAt, forKey: .observedAt)
        }
    }

    public var station: Station
    public var current: Current

    /// Where the forecast comes from, with the credit its licence asks the app to show (FMI's open data: CC BY 4.0;
    /// MET Norway's: NLOD 2.0 and CC BY 4.0, "Data from MET Norway").
    static func source(_ source: Forecast.Source, to json: inout JSONWriter) {
        let (attribution, name) =
            switch source {
            case .fmi: ("Finnish Meteorological Institute (FMI) open data, CC BY 4.0", "FMI")
            case .metNorway: ("Data from MET Norway (api.met.no), CC BY 4.0", "MET Norway")
            }
        json.object { json in
            json.member("attribution", attribution)
            json.member("name", name)
        }
    }

    /// The body: these two parts around the cell's already-encoded `daily_forecast` and `hourly_forecast` (keys in
    /// sorted order, as every other body).
    ///
    /// Written into one buffer sized for it: chained `+` would leave up to twice the length in capacity, and these
    /// bodies are kept by the thousand.
    /// - Parameter location: the place asked for by name (`place=`), as FMI resolved it; `nil` for `lat`/`lon`.
    /// - Parameter warnings: the point's warnings, encoded (`[]` when none).
    func body(
        dailyForecast: [UInt8], hourlyForecast: [UInt8], source: Forecast.Source = .fmi, warnings: String = "[]", location: PlaceResolver.Place? = nil
    ) throws -> [UInt8] {
        let current = try JSONBody.encode(current), station = try JSONBody.encode(station)
        let size = current.count + dailyForecast.count + hourlyForecast.count + station.count + warnings.utf8.count + 256
        return JSONWriter.make(reservingCapacity: size) { json in
            json.object { json in
                json.member("current", json: current)
                json.member("daily_forecast", json: dailyForecast)
                json.key("forecast_source")
                Self.source(source, to: &json)
                json.member("hourly_forecast", json: hourlyForecast)
                if let location {
                    json.key("location")
                    location.write(to: &json)
                }
                json.member("station", json: station)
                json.member("warnings", json: warnings.utf8)
            }
        }
    }

    public init(station: StationObservation, kilometres: Double) {
        self.station = Station(name: station.name, distanceKilometres: DailyForecast.tenth(kilometres))
        current = Current(
            temperature: station.temperature,
            feelsLike: FeelsLike.temperature(celsius: station.temperature, windSpeed: station.windSpeed, humidity: station.humidity)
                .map(DailyForecast.tenth),
            windSpeed: station.windSpeed, windDirection: station.windDirection, humidity: station.humidity,
            pressure: station.pressure, symbol: WeatherSymbol(wawa: station.weatherCode, cloudCover: station.cloudCover),
            observedAt: Timestamp.iso8601(station.observedAt))
    }
}
