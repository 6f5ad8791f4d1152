/// Where MET Norway is asked for: a point (the asking feature's grid cell's centre) and the indices it is kept
/// under — one forecast per cell, however many points in it are asked about.
public struct METNorwayPoint: Sendable, Hashable, CustomStringConvertible {
    public let latitudeIndex: Int
    public let longitudeIndex: Int
    public let latitude: Double
    public let longitude: Double

    public init(latitudeIndex: Int, longitudeIndex: Int, latitude: Double, longitude: Double) {
        self.latitudeIndex = latitudeIndex
        self.longitudeIndex = longitudeIndex
        self.latitude = latitude
        self.longitude = longitude
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.latitudeIndex == rhs.latitudeIndex && lhs.longitudeIndex == rhs.longitudeIndex
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(latitudeIndex)
        hasher.combine(longitudeIndex)
    }

    public var description: String { "\(latitudeIndex)/\(longitudeIndex)" }
}
