/// A forecast cell of about 1 km: 0.01° of latitude (1.1 km) by 0.02° of longitude (1.1 km at 60° N, 0.7 km
/// at 70° N). Points in one cell share one FMI forecast, fetched for the cell's centre.
public struct GridCell: Sendable, Hashable, CustomStringConvertible {
    public static let latitudeStep = 0.01
    public static let longitudeStep = 0.02

    /// Cell indices (stored as `cell_lat`, `cell_lon`).
    public let latitudeIndex: Int
    public let longitudeIndex: Int

    public init(latitudeIndex: Int, longitudeIndex: Int) {
        self.latitudeIndex = latitudeIndex
        self.longitudeIndex = longitudeIndex
    }

    /// The cell containing a point (rounded to the nearest cell centre).
    public init(latitude: Double, longitude: Double) {
        latitudeIndex = Int((latitude / Self.latitudeStep).rounded())
        longitudeIndex = Int((longitude / Self.longitudeStep).rounded())
    }

    public var latitude: Double { Double(latitudeIndex) * Self.latitudeStep }
    public var longitude: Double { Double(longitudeIndex) * Self.longitudeStep }

    public var description: String { "\(latitudeIndex)/\(longitudeIndex)" }
}
