import Feature
import HTTPServer

/// `GET /v1/places` and `GET /v1/geocode`: Geoapify's answers in Geoapify's GeoJSON shape (the app changes
/// the URL and drops `apiKey`), with Pier's key, cached for everyone.
public struct PlacesRoutes: Sendable {
    public static let placesPath = "/v1/places"
    public static let geocodePath = "/v1/geocode"
    /// Geoapify's own path under Pier's `/v1`, so the app swaps only its host (`…/v1/geocode` + `/search`).
    public static let geocodeSearchPath = "/v1/geocode/search"

    private let service: PlacesService<CachedResponse>?
    private let clients: ClientAddress

    /// - Parameter service: `nil` when no Geoapify key is configured (the routes then say so).
    public init(service: PlacesService<CachedResponse>?, clients: ClientAddress = ClientAddress()) {
        self.service = service
        self.clients = clients
    }

    public func register(in router: inout Router) {
        router.hybrid(.get, Self.placesPath) { [service, clients] request in
            let key = try PlacesQuery.key(request.query)
            guard let service else { throw Self.notConfigured }
            if let cached = service.cachedPlaces(for: key) { return .response(cached.response(for: request)) }
            return .later { await service.places(for: key, client: clients.client(of: request)).response(for: request) }
        }
        for path in [Self.geocodePath, Self.geocodeSearchPath] {
            router.hybrid(.get, path) { [service, clients] request in
                let key = try GeocodeKey(request.query)
                guard let service else { throw Self.notConfigured }
                if let cached = service.geocode.cachedResponse(for: key) { return .response(cached.response(for: request)) }
                return .later { await service.geocode.response(for: key, client: clients.client(of: request)).response(for: request) }
            }
        }
    }

    static let notConfigured = HTTPError(
        .serviceUnavailable, "places and geocoding are not configured on this server (no Geoapify key)", headers: ["Retry-After": "3600"])

    /// The HTTP answer for what the service has, made once per answer: the collection with its ETag and the
    /// freshness left as `max-age` (stale: `X-Pier-Stale: <source>` + `Warning: 110`); a request Geoapify
    /// refused (`400`, remembered an hour) with its message; `503` (or `429` when this client's share is spent)
    /// + `Retry-After` when nothing can be served.
    @Sendable public static func render(_ answer: SharedAnswer, source: String) -> CachedResponse {
        if case .answer(let stored, let freshFor, _) = answer, stored.status != 200 {
            let message = String(decoding: stored.body, as: UTF8.self)
            return CachedResponse(.error(
                .badRequest, "Geoapify refused this request" + (message.isEmpty ? "" : ": \(message)"),
                headers: ["Cache-Control": "public, max-age=\(freshFor)"]))
        }
        return answer.response(source: source)
    }
}
