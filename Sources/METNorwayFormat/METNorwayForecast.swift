import Foundation

/// A Locationforecast 2.0 `compact` answer as Pier reads it: MET's update time and its steps, every block optional
/// (MET: "every period block can be missing: read what is there").
public struct METNorwayForecast: Sendable, Equatable {
    public struct Step: Sendable, Equatable {
        public var time: Date
        /// °C at 2 m.
        public var temperature: Double?
        /// m/s at 10 m, 10-minute mean.
        public var windSpeed: Double?
        /// Degrees the wind comes from.
        public var windDirection: Double?
        public var humidity: Double?
        /// hPa at sea level.
        public var pressure: Double?
        /// mm in the step's period (``periodHours``), `nil` when MET gave none.
        public var precipitation: Double?
        /// 1 while MET has hourly data (`next_1_hours`), then 6 (`next_6_hours`); `nil` without a period block.
        public var periodHours: Int?
        /// The period's symbol without its `_day`/`_night`/`_polartwilight` suffix (`lightrainshowers`).
        public var symbol: String?

        public init(
            time: Date, temperature: Double? = nil, windSpeed: Double? = nil, windDirection: Double? = nil, humidity: Double? = nil,
            pressure: Double? = nil, precipitation: Double? = nil, periodHours: Int? = nil, symbol: String? = nil
        ) {
            self.time = time
            self.temperature = temperature
            self.windSpeed = windSpeed
            self.windDirection = windDirection
            self.humidity = humidity
            self.pressure = pressure
            self.precipitation = precipitation
            self.periodHours = periodHours
            self.symbol = symbol
        }
    }

    public var updatedAt: Date?
    /// In time order, each time once.
    public var steps: [Step]

    public init(updatedAt: Date?, steps: [Step]) {
        self.updatedAt = updatedAt
        self.steps = steps
    }
}
