/// A request's identity in `upstream_answers` (``SharedAnswerSource``).
public protocol SharedAnswerKey: Hashable, Sendable, CustomStringConvertible {
    /// The row's key in `upstream_answers` (unique within the service's kind).
    var storageKey: String { get }
    /// For answers reused by nearby requests: everything but the point (`near_params`) and the point, stored
    /// so that ``SharedAnswerStore/nearest(kind:parameters:latitude:longitude:within:)`` finds them.
    var location: SharedAnswerLocation? { get }
}

extension SharedAnswerKey {
    public var location: SharedAnswerLocation? { nil }
}

/// See ``SharedAnswerKey/location``.
public struct SharedAnswerLocation: Sendable, Equatable {
    public var parameters: String
    public var latitude: Double
    public var longitude: Double

    public init(parameters: String, latitude: Double, longitude: Double) {
        self.parameters = parameters
        self.latitude = latitude
        self.longitude = longitude
    }
}
