import Parsing

/// One date's sun events at one point, as sunrise-sunset.org lists them. An event the day does not have
/// (midnight sun, polar night) is `nil`.
public struct SunTimes: Sendable, Equatable {
    /// Seconds since 1970-01-01 UTC, whole.
    public var sunrise: Int?
    public var sunset: Int?
    public var solarNoon: Int
    /// Seconds between sunrise and sunset; 86400 under the midnight sun, 0 in polar night.
    public var dayLength: Int
    public var civilTwilight: (begin: Int?, end: Int?)
    public var nauticalTwilight: (begin: Int?, end: Int?)
    public var astronomicalTwilight: (begin: Int?, end: Int?)

    public init(date: CalendarDate, latitude: Double, longitude: Double) {
        func event(_ horizon: SolarCalculator.Horizon, rising: Bool) -> SolarCalculator.Crossing {
            SolarCalculator.crossing(horizon, rising: rising, on: date, latitude: latitude, longitude: longitude)
        }
        func instant(_ crossing: SolarCalculator.Crossing) -> Int? {
            if case .at(let seconds) = crossing { return Int(seconds.rounded()) }
            return nil
        }
        let rise = event(.sunriseSunset, rising: true)
        let set = event(.sunriseSunset, rising: false)
        sunrise = instant(rise)
        sunset = instant(set)
        solarNoon = Int(SolarCalculator.solarNoon(on: date, longitude: longitude).rounded())
        if let sunrise, let sunset {
            dayLength = sunset - sunrise
        } else {
            dayLength = (rise == .alwaysAbove || set == .alwaysAbove) ? 86_400 : 0
        }
        civilTwilight = (instant(event(.civil, rising: true)), instant(event(.civil, rising: false)))
        nauticalTwilight = (instant(event(.nautical, rising: true)), instant(event(.nautical, rising: false)))
        astronomicalTwilight = (instant(event(.astronomical, rising: true)), instant(event(.astronomical, rising: false)))
    }

    public static func == (lhs: SunTimes, rhs: SunTimes) -> Bool {
        lhs.sunrise == rhs.sunrise && lhs.sunset == rhs.sunset && lhs.solarNoon == rhs.solarNoon && lhs.dayLength == rhs.dayLength
            && lhs.civilTwilight == rhs.civilTwilight && lhs.nauticalTwilight == rhs.nauticalTwilight
            && lhs.astronomicalTwilight == rhs.astronomicalTwilight
    }
}
