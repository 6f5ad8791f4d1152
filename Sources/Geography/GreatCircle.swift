import Foundation

/// Distances on a sphere of the Earth's mean radius: the same model as PostGIS's geography `<->` operator
/// and `ST_Distance(…, false)`, so the in-memory nearest station and the SQL one agree; also what "within 100 m"
/// means for places.
public enum GreatCircle {
    public static let earthRadiusKilometres = 6371.0087714

    public static func kilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let φ1 = lat1 * .pi / 180, φ2 = lat2 * .pi / 180
        let Δφ = (lat2 - lat1) * .pi / 180, Δλ = (lon2 - lon1) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * earthRadiusKilometres * asin(min(1, sqrt(a)))
    }

    public static func metres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        kilometres(lat1, lon1, lat2, lon2) * 1000
    }

    /// A latitude/longitude box holding every point within `metres` of the point (for an indexed range query
    /// before the exact distance).
    public static func box(latitude: Double, longitude: Double, metres: Double)
        -> (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double)
    {
        let dLatitude = metres / (earthRadiusKilometres * 1000) * 180 / .pi
        let dLongitude = dLatitude / max(0.01, cos(min(89.9, abs(latitude) + dLatitude) * .pi / 180))
        return (latitude - dLatitude, latitude + dLatitude, longitude - dLongitude, longitude + dLongitude)
    }
}
