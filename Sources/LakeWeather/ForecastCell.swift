import Feature
import Foundation

/// The grid cell a point's forecast is fetched for: the point rounded to ``size`` degrees, so that users a
/// few hundred metres apart share one upstream call. OpenWeather's model grid is coarser than the default
/// 0.05° (~5.5 km north–south), so nothing of value is lost.
public struct ForecastCell: Sendable, Hashable, CustomStringConvertible {
    public let latitude: Double
    public let longitude: Double
    /// Decimals written in the key and the upstream request (enough for the cell size).
    private let decimals: Int

    public init(_ point: Coordinate, size: Double) {
        let size = size > 0 ? size : 0.05
        let decimals = max(0, min(6, Int((-log10(size)).rounded(.up))))
        self.decimals = decimals
        latitude = Self.snap(point.latitude, size: size, decimals: decimals, within: -90...90)
        longitude = Self.snap(point.longitude, size: size, decimals: decimals, within: -180...180)
    }

    private static func snap(_ value: Double, size: Double, decimals: Int, within range: ClosedRange<Double>) -> Double {
        let snapped = (value / size).rounded() * size
        let scale = pow(10, Double(decimals))
        return min(range.upperBound, max(range.lowerBound, (snapped * scale).rounded() / scale))
    }

    /// `47.35,8.55`: the cache key, in memory and PostgreSQL.
    public var description: String { "\(text(latitude)),\(text(longitude))" }

    /// A coordinate as written in the key and the upstream URL.
    public func text(_ value: Double) -> String {
        let text = String(format: "%.\(decimals)f", value)
        return text == "-0" || text.hasPrefix("-0.") && Double(text) == 0 ? String(text.dropFirst()) : text
    }
}
