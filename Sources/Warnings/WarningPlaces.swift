import Feature
import Geography
import HTTPServer

/// What `/v1/warnings` needs of the feature that knows points and place names (the weather's: FMI's coverage and its
/// own names): where a request asks about. Handed to the warnings feature when the composition root makes it, after
/// the feature that knows them; without it the route takes `lat`/`lon` only.
public protocol WarningPlaces: Sendable {
    /// `lat`/`lon` (any valid point: no warning lies outside FMI's areas) or `place=`, known now or resolved off the
    /// loop; a bad request throws its HTTP error.
    func whereabouts(of request: HTTPRequest) throws -> WarningWhereabouts

    /// The place FMI names `name` (normalised: a device's saved place), on the share of whoever `request` counts as;
    /// an unknown place throws `404`, one outside the coverage `422`.
    func whereabouts(ofPlace name: String, for request: HTTPRequest) throws -> WarningWhereabouts
}

/// A point, with the `location` member of the answer (`{"lat":…,"lon":…,"name":…}`) when a place was named.
public enum WarningWhereabouts: Sendable {
    case known(Coordinate, location: String?)
    case resolving(@Sendable () async throws -> (Coordinate, location: String))
}
