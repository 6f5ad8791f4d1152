import Foundation

/// Where a series was observed or forecast: a station (observations) or the forecast point.
public struct FMILocation: Sendable, Equatable {
    /// FMI's station id; `nil` for forecasts (they carry a geoid instead).
    public var fmisid: Int?
    public var name: String?
    public var latitude: Double
    public var longitude: Double

    public init(fmisid: Int?, name: String?, latitude: Double, longitude: Double) {
        self.fmisid = fmisid
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// One parameter's values at one location, as FMI's timevaluepair format gives them.
public struct FMISeries: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var time: Date
        /// `nil` where FMI wrote `NaN`.
        public var value: Double?
    }

    /// The parameter as requested (`t2m`, `Temperature`).
    public var parameter: String
    public var location: FMILocation
    public var points: [Point]
}
