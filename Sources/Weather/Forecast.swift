import FMIFormat
import Foundation

/// A point forecast for one grid cell, hourly, kept compact (``HourlySeries``).
public struct Forecast: Sendable, Equatable {
    public struct Hour: Sendable, Equatable {
        public var validAt: Date
        public var temperature: Double?
        public var windSpeed: Double?
        public var windDirection: Double?
        public var humidity: Double?
        public var pressure: Double?
        public var precipitation: Double?
        /// FMI WeatherSymbol3.
        public var symbolCode: Double?
        /// The hour's strongest gust, m/s (`HourlyMaximumGust`).
        public var windGust: Double?
        /// FMI's feels-like temperature, °C (`FeelsLike`; computed from the others when FMI sends none).
        public var feelsLike: Double?

        public init(
            validAt: Date, temperature: Double? = nil, windSpeed: Double? = nil, windDirection: Double? = nil,
            humidity: Double? = nil, pressure: Double? = nil, precipitation: Double? = nil, symbolCode: Double? = nil,
            windGust: Double? = nil, feelsLike: Double? = nil
        ) {
            self.validAt = validAt
            self.temperature = temperature
            self.windSpeed = windSpeed
            self.windDirection = windDirection
            self.humidity = humidity
            self.pressure = pressure
            self.precipitation = precipitation
            self.symbolCode = symbolCode
            self.windGust = windGust
            self.feelsLike = feelsLike
        }

        /// True when FMI gave nothing for this hour (the all-NaN answer).
        var isEmpty: Bool {
            temperature == nil && windSpeed == nil && precipitation == nil && symbolCode == nil && humidity == nil
        }
    }

    /// Who made the forecast: FMI (its edited forecast), or MET Norway standing in when FMI could not answer.
    public enum Source: String, Sendable {
        case fmi
        case metNorway = "met_norway"
    }

    // Constants: the encodings made from a forecast are shared by its copies.
    public let cell: GridCell
    public let fetchedAt: Date
    public let series: HourlySeries
    public let source: Source
    /// Its `daily_forecast` and `hourly_forecast`, made when first asked in each hour.
    let encodings = ForecastEncodings()

    public init(cell: GridCell, fetchedAt: Date, hours: [Hour], source: Source = .fmi) {
        self.cell = cell
        self.fetchedAt = fetchedAt
        series = HourlySeries(hours: hours)
        self.source = source
    }

    /// The hours, unpacked.
    public var hours: [Hour] { series.hours }

    /// Bytes this forecast holds in memory, with the encodings it may hold (``ForecastEncodings/maximumBytes``).
    public var byteCount: Int { MemoryLayout<Forecast>.size + series.byteCount + ForecastEncodings.maximumBytes }

    /// Equal data; the encodings are made from it.
    public static func == (lhs: Forecast, rhs: Forecast) -> Bool {
        lhs.cell == rhs.cell && lhs.fetchedAt == rhs.fetchedAt && lhs.series == rhs.series && lhs.source == rhs.source
    }

    /// Builds the hours from a parsed point-forecast document (parameter names matched case-insensitively).
    public init(cell: GridCell, fetchedAt: Date, series: [FMISeries]) {
        var hours: [Date: Hour] = [:]
        for entry in series {
            let keyPath: WritableKeyPath<Hour, Double?>
            switch entry.parameter.lowercased() {
            case "temperature": keyPath = \.temperature
            case "windspeedms": keyPath = \.windSpeed
            case "winddirection": keyPath = \.windDirection
            case "humidity": keyPath = \.humidity
            case "pressure": keyPath = \.pressure
            case "precipitation1h": keyPath = \.precipitation
            case "weathersymbol3": keyPath = \.symbolCode
            case "hourlymaximumgust", "windgust": keyPath = \.windGust
            case "feelslike": keyPath = \.feelsLike
            default: continue
            }
            for point in entry.points {
                hours[point.time, default: Hour(validAt: point.time)][keyPath: keyPath] = point.value
            }
        }
        self.init(cell: cell, fetchedAt: fetchedAt, hours: hours.values.filter { !$0.isEmpty }.sorted { $0.validAt < $1.validAt })
    }
}
