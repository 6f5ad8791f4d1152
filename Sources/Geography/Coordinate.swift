import Basics
import HTTPServer

/// A point on Earth in decimal degrees, validated once where it enters (a query), then passed as one value.
public struct Coordinate: Sendable, Hashable, CustomStringConvertible {
    public let latitude: Double
    public let longitude: Double

    /// `nil` unless both are finite and within −90…90 / −180…180.
    public init?(latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// `lat,lon` as given (the key of per-point caches).
    public var description: String { "\(latitude),\(longitude)" }

    /// Why a query gave no coordinate; the route answers it `400` naming the parameter.
    public enum Problem: Error, Equatable, HTTPErrorConvertible {
        case missing(parameter: String)
        case notANumber(parameter: String, text: String)
        case notFinite(parameter: String)
        case outOfRange(parameter: String, range: ClosedRange<Double>)

        public var httpError: HTTPError {
            switch self {
            case .missing(let name):
                HTTPError(.badRequest, "\(name) is required (decimal degrees, e.g. lat=60.17&lon=24.94)")
            case .notANumber(let name, let text):
                HTTPError(.badRequest, "\(name) must be a number in decimal degrees, not '\(text.prefix(40))'")
            case .notFinite(let name):
                HTTPError(.badRequest, "\(name) must be a finite number")
            case .outOfRange(let name, let range):
                HTTPError(.badRequest, "\(name) must be between \(Int(range.lowerBound)) and \(Int(range.upperBound))")
            }
        }
    }

    /// The coordinate a query names (`lat` and `lon` unless told otherwise), or the first problem found. The names are
    /// literals, compared where they lie (``QueryParameters/withValue(literal:_:)``).
    public init(_ query: QueryParameters, latitude latitudeName: StaticString = "lat", longitude longitudeName: StaticString = "lon") throws(Problem) {
        let latitude = try Self.degrees(query, latitudeName, in: -90...90)
        let longitude = try Self.degrees(query, longitudeName, in: -180...180)
        self.latitude = latitude
        self.longitude = longitude
    }

    private static func degrees(_ query: QueryParameters, _ name: StaticString, in range: ClosedRange<Double>) throws(Problem) -> Double {
        // The value's bytes read in place: a coordinate is asked for on every weather, warnings and sun request.
        let read = query.withValue(literal: name) { (given: !$0.isEmpty, value: DecimalText.double(bytes: $0)) }
        guard let read, read.given else { throw .missing(parameter: name.description) }
        guard let value = read.value else { throw .notANumber(parameter: name.description, text: query[name.description] ?? "") }
        guard value.isFinite else { throw .notFinite(parameter: name.description) }
        guard range.contains(value) else { throw .outOfRange(parameter: name.description, range: range) }
        return value
    }
}
