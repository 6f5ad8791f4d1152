import Foundation

/// Distances on a sphere of the Earth's mean radius: the same model as PostGIS's geography `<->` operator
/// and `ST_Distance(…, false)`, so the in-memory nearest station and the SQL one agree.
public enum GreatCircle {
    public static let earthRadiusKilometres = 6371.0087714

    public static func kilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let φ1 = lat1 * .pi / 180, φ2 = lat2 * .pi / 180
        let Δφ = (lat2 - lat1) * .pi / 180, Δλ = (lon2 - lon1) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * earthRadiusKilometres * asin(min(1, sqrt(a)))
    }
}
