import Foundation

/// FMI's feels-like temperature (`FmiFeelsLikeTemperature`, smartmet-library-newbase `NFmiMetMath.cpp`):
/// a wind-chill part fitted for m/s plus the summer simmer index, without solar radiation (stations do not
/// report it). Missing temperature, wind or humidity gives `nil`, as FMI's function gives "missing".
public enum FeelsLike {
    public static func temperature(celsius t: Double?, windSpeed ws: Double?, humidity rh: Double?) -> Double? {
        guard let t, let ws, let rh, t.isFinite, ws.isFinite, rh.isFinite, ws >= 0 else { return nil }
        let chill = 15 + (1 - 15.0 / 37) * t + (15.0 / 37) * pow(ws + 1, 0.16) * (t - 37)
        let heat = summerSimmer(humidity: rh, celsius: t)
        return t + (chill - t) + (heat - t)
    }

    static func summerSimmer(humidity rh: Double, celsius t: Double) -> Double {
        guard t > 14.5 else { return t }
        let relative = 0.5
        return (1.8 * t - 0.55 * (1 - rh / 100) * (1.8 * t - 26) - 0.55 * (1 - relative) * 26) / (1.8 * (1 - 0.55 * (1 - relative)))
    }
}
