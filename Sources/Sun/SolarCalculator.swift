import Foundation
import Parsing

/// Sunrise, sunset, solar noon and twilight from NOAA's published solar equations (the Global Monitoring
/// Laboratory's solar calculator and its spreadsheet, after Meeus' *Astronomical Algorithms*). No upstream, no
/// dependency: a few dozen floating-point operations per event.
///
/// The spreadsheet evaluates the sun's position once, at one time of the day; an event's time then drifts by
/// up to a minute from the calculator's. Here each event is solved again with the sun's position at the time
/// found (three rounds converge to well under a second), as NOAA's web calculator does.
public enum SolarCalculator {
    /// The depression of the sun's centre that marks each event: refraction and the sun's radius (0.833°) for
    /// sunrise and sunset, 6°/12°/18° for civil, nautical and astronomical twilight.
    public enum Horizon: Double, Sendable, CaseIterable {
        case sunriseSunset = 90.833
        case civil = 96
        case nautical = 102
        case astronomical = 108
    }

    /// An event's instant, or why the day has none.
    public enum Crossing: Sendable, Equatable {
        /// Seconds since 1970-01-01 UTC.
        case at(Double)
        /// The sun stays above this horizon all day (midnight sun for sunrise/sunset).
        case alwaysAbove
        /// The sun stays below it all day (polar night).
        case alwaysBelow
    }

    /// The sun's position the equations need at one instant.
    struct Position {
        /// Radians.
        let declination: Double
        /// Minutes (apparent minus mean solar time).
        let equationOfTime: Double
    }

    private static let rounds = 3

    /// Solar noon (the sun's transit) of `date` at `longitude`: seconds since 1970-01-01 UTC.
    public static func solarNoon(on date: CalendarDate, longitude: Double) -> Double {
        let midnight = Double(date.dayNumber) * 86_400
        var minutes = 720 - 4 * longitude
        for _ in 0..<rounds {
            minutes = 720 - 4 * longitude - position(at: midnight + minutes * 60).equationOfTime
        }
        return midnight + minutes * 60
    }

    /// The instant the sun's centre crosses `horizon` rising (`rising: true`) or setting on `date`, the day
    /// around that date's solar noon (as sunrise-sunset.org and NOAA list a date's events).
    public static func crossing(_ horizon: Horizon, rising: Bool, on date: CalendarDate, latitude: Double, longitude: Double) -> Crossing {
        let midnight = Double(date.dayNumber) * 86_400
        let latitudeRadians = latitude * .pi / 180
        let zenith = horizon.rawValue * .pi / 180
        var minutes = (solarNoon(on: date, longitude: longitude) - midnight) / 60
        for _ in 0..<rounds {
            let sun = position(at: midnight + minutes * 60)
            let cosine = cos(zenith) / (cos(latitudeRadians) * cos(sun.declination)) - tan(latitudeRadians) * tan(sun.declination)
            if cosine > 1 { return .alwaysBelow }
            if cosine < -1 { return .alwaysAbove }
            // Hour angle in degrees; the earth turns one degree in four minutes.
            let hourAngle = acos(cosine) * 180 / .pi
            let noon = 720 - 4 * longitude - sun.equationOfTime
            minutes = noon + (rising ? -4 : 4) * hourAngle
        }
        return .at(midnight + minutes * 60)
    }

    /// NOAA's spreadsheet, columns G to V, at `instant` (seconds since 1970-01-01 UTC).
    static func position(at instant: Double) -> Position {
        let degree = Double.pi / 180
        let julianDay = instant / 86_400 + 2_440_587.5
        let t = (julianDay - 2_451_545) / 36_525
        let meanLongitude = (280.46646 + t * (36_000.76983 + t * 0.0003032)).truncatingRemainder(dividingBy: 360)
        let meanAnomaly = 357.52911 + t * (35_999.05029 - 0.0001537 * t)
        let eccentricity = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
        let centre =
            sin(meanAnomaly * degree) * (1.914602 - t * (0.004817 + 0.000014 * t))
            + sin(2 * meanAnomaly * degree) * (0.019993 - 0.000101 * t)
            + sin(3 * meanAnomaly * degree) * 0.000289
        let trueLongitude = meanLongitude + centre
        let omega = (125.04 - 1934.136 * t) * degree
        let apparentLongitude = trueLongitude - 0.00569 - 0.00478 * sin(omega)
        let meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let obliquity = (meanObliquity + 0.00256 * cos(omega)) * degree
        let declination = asin(sin(obliquity) * sin(apparentLongitude * degree))
        let y = pow(tan(obliquity / 2), 2)
        let l0 = meanLongitude * degree
        let m = meanAnomaly * degree
        let equation =
            y * sin(2 * l0) - 2 * eccentricity * sin(m) + 4 * eccentricity * y * sin(m) * cos(2 * l0)
            - 0.5 * y * y * sin(4 * l0) - 1.25 * eccentricity * eccentricity * sin(2 * m)
        return Position(declination: declination, equationOfTime: 4 * equation / degree)
    }
}
