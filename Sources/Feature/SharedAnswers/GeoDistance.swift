import Foundation

/// Distances between nearby points (an equirectangular approximation: within a few kilometres it is off by
/// less than a metre in a hundred, which is all "within ~100 m" needs).
public enum GeoDistance {
    static let metresPerDegree = 111_195.0

    public static func metres(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let x = (longitude2 - longitude1) * cos((latitude1 + latitude2) / 2 * .pi / 180)
        let y = latitude2 - latitude1
        return (x * x + y * y).squareRoot() * metresPerDegree
    }

    /// A box holding every point within `metres` of the point (for an indexed range query).
    public static func box(latitude: Double, longitude: Double, metres: Double)
        -> (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double)
    {
        let dLatitude = metres / metresPerDegree
        let dLongitude = dLatitude / max(0.01, cos(min(89.9, abs(latitude) + dLatitude) * .pi / 180))
        return (latitude - dLatitude, latitude + dLatitude, longitude - dLongitude, longitude + dLongitude)
    }
}
