import Foundation

/// A station and its latest known conditions (the newest non-missing value of each parameter).
public struct StationObservation: Sendable, Equatable {
    public var fmisid: Int
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// When the temperature used was observed (a station without temperature is never chosen).
    public var observedAt: Date
    public var temperature: Double?
    public var windSpeed: Double?
    public var windDirection: Double?
    public var humidity: Double?
    public var pressure: Double?
    public var weatherCode: Double?
    public var cloudCover: Double?

    public init(
        fmisid: Int, name: String, latitude: Double, longitude: Double, observedAt: Date, temperature: Double?,
        windSpeed: Double? = nil, windDirection: Double? = nil, humidity: Double? = nil, pressure: Double? = nil,
        weatherCode: Double? = nil, cloudCover: Double? = nil
    ) {
        self.fmisid = fmisid
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.observedAt = observedAt
        self.temperature = temperature
        self.windSpeed = windSpeed
        self.windDirection = windDirection
        self.humidity = humidity
        self.pressure = pressure
        self.weatherCode = weatherCode
        self.cloudCover = cloudCover
    }
}

/// One row of `weather_observations`: a station's values at one time (any may be missing).
public struct ObservationRow: Sendable, Equatable {
    public var fmisid: Int
    public var observedAt: Date
    public var values: [ObservationParameter: Double]

    public init(fmisid: Int, observedAt: Date, values: [ObservationParameter: Double]) {
        self.fmisid = fmisid
        self.observedAt = observedAt
        self.values = values
    }
}

/// The observation parameters Pier asks FMI for, with their column in `weather_observations`.
public enum ObservationParameter: String, Sendable, CaseIterable {
    case t2m, ws_10min, wd_10min, rh, p_sea, wawa, n_man

    var column: String {
        switch self {
        case .t2m: "temperature"
        case .ws_10min: "wind_speed"
        case .wd_10min: "wind_direction"
        case .rh: "humidity"
        case .p_sea: "pressure"
        case .wawa: "weather_code"
        case .n_man: "cloud_cover"
        }
    }
}
