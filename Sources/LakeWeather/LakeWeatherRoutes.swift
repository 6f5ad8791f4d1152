import Feature
import HTTPServer

/// `GET /v1/lake-weather?lat=…&lon=…`: OpenWeather's 5-day / 3-hour forecast for the point's cell, as
/// OpenWeather writes it, plus Pier's `daily` summary. A drop-in for `…/data/2.5/forecast`: `appid` is
/// accepted and ignored, `units` must be `metric` (the only units Pier fetches).
public struct LakeWeatherRoutes: Sendable {
    public static let path = "/v1/lake-weather"

    private let service: LakeWeatherService<CachedResponse>?
    private let clients: ClientAddress

    /// - Parameter service: `nil` when no OpenWeather key is configured (the route then says so).
    public init(service: LakeWeatherService<CachedResponse>?, clients: ClientAddress = ClientAddress()) {
        self.service = service
        self.clients = clients
    }

    public func register(in router: inout Router) {
        router.hybrid(.get, Self.path) { [service, clients] request in
            let point = try Coordinate(request.query)
            if let units = request.query["units"], units != "metric" {
                throw HTTPError(.badRequest, "units must be metric (Pier fetches metric forecasts only), not '\(units.prefix(20))'")
            }
            guard let service else { throw Self.notConfigured }
            let cell = service.cell(for: point)
            if let cached = service.cachedResponse(for: cell) { return .response(cached.response(for: request)) }
            return .later { await service.response(for: cell, client: clients.client(of: request)).response(for: request) }
        }
    }

    static let notConfigured = HTTPError(.serviceUnavailable, "lake weather is not configured on this server", headers: ["Retry-After": "3600"])

    /// The HTTP answer for a service's answer, made once per answer: the forecast with its ETag and the
    /// freshness left as `max-age` (stale: `X-Pier-Stale: lake-weather` + `Warning: 110`); `503` (or `429`
    /// when this client's share is spent) + `Retry-After` when nothing can be served.
    @Sendable public static func prepare(_ answer: LakeWeatherAnswer) -> CachedResponse {
        switch answer {
        case .forecast(let body, let freshFor, let stale):
            var headers: HTTPHeaders = ["Cache-Control": "public, max-age=\(freshFor)"]
            if stale {
                headers.add("X-Pier-Stale", "lake-weather")
                headers.add("Warning", "110 - \"Response is Stale\"")
            }
            return CachedResponse(json: body, headers: headers)
        case .unavailable(let reason, let retryAfter, let clientShare):
            return CachedResponse(
                .error(clientShare ? .tooManyRequests : .serviceUnavailable, reason, headers: ["Retry-After": String(retryAfter), "Cache-Control": "no-store"]))
        }
    }
}
