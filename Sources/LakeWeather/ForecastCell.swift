import Feature
import Foundation
import Geography

/// The grid cell a point's forecast is fetched for: the point rounded to `size` degrees, so that users a few
/// hundred metres apart share one upstream call. OpenWeather's model grid is coarser than the default 0.05°
/// (~5.5 km north–south), so nothing of value is lost. Identified by its integer row and column (cheap to hash
/// on the hot path); the text form is made only for PostgreSQL and the upstream.
public struct ForecastCell: Sendable, Hashable, CustomStringConvertible {
    public let row: Int
    public let column: Int
    public let size: Double

    public init(_ point: Coordinate, size: Double) {
        let size = size > 0 ? size : 0.05
        self.size = size
        row = Int((point.latitude / size).rounded())
        column = Int((point.longitude / size).rounded())
    }

    /// The cell's centre.
    public var latitude: Double { Self.rounded(Double(row) * size, decimals: decimals, within: -90...90) }
    public var longitude: Double { Self.rounded(Double(column) * size, decimals: decimals, within: -180...180) }

    /// Decimals written in the key and the upstream request (enough for the cell size).
    private var decimals: Int { max(0, min(6, Int((-log10(size)).rounded(.up)))) }

    private static func rounded(_ value: Double, decimals: Int, within range: ClosedRange<Double>) -> Double {
        let scale = pow(10, Double(decimals))
        return min(range.upperBound, max(range.lowerBound, (value * scale).rounded() / scale))
    }

    /// `47.35,8.55`: the key in PostgreSQL.
    public var description: String { "\(text(latitude)),\(text(longitude))" }

    /// A coordinate as written in the key and the upstream URL.
    public func text(_ value: Double) -> String {
        let text = String(format: "%.\(decimals)f", value)
        return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
    }
}
