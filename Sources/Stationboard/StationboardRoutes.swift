import HTTPServer

/// `GET /v1/stationboard?id=…&date=…&limit=…` (also `datetime=`, `transportations[]=`, `type=`):
/// transport.opendata.ch's stationboard with `shipName` on every journey.
public struct StationboardRoutes: Sendable {
    public static let path = "/v1/stationboard"

    private let service: StationboardService<CachedResponse>
    private let clients: ClientAddress

    /// - Parameter clients: how the client's address is found (trusted proxies), for its share of the budget.
    public init(service: StationboardService<CachedResponse>, clients: ClientAddress = ClientAddress()) {
        self.service = service
        self.clients = clients
    }

    public func register(in router: inout Router) {
        router.hybrid(.get, Self.path) { [service, clients] request in
            let query = try StationboardQuery(request, today: { service.today() })
            if let cached = service.cachedResponse(for: query) { return .response(cached.response(for: request)) }
            return .later { await service.response(for: query, client: clients.client(of: request)).response(for: request) }
        }
    }

    /// The HTTP answer for a service's answer, made once per answer (the service keeps it in memory): a board
    /// with its ETag and the freshness left as `max-age` (stale: `X-Pier-Stale` + `Warning: 110`), `404` for an
    /// unknown station (cacheable like a board), `503` + `Retry-After` when nothing can be served (`429` when it is
    /// this client's share of the budget that is spent).
    @Sendable public static func prepare(_ answer: StationboardAnswer) -> CachedResponse {
        switch answer {
        case .board(let body, let freshFor, let stale):
            var headers: HTTPHeaders = ["Cache-Control": "public, max-age=\(freshFor)"]
            if stale {
                headers.add("X-Pier-Stale", "stationboard")
                headers.add("Warning", "110 - \"Response is Stale\"")
            }
            return CachedResponse(json: body, headers: headers)
        case .unknownStation(let station, let freshFor):
            return CachedResponse(
                .error(.notFound, "transport.opendata.ch knows no station with id \(station)", headers: ["Cache-Control": "public, max-age=\(freshFor)"]))
        case .unavailable(let reason, let retryAfter, let clientShare):
            return CachedResponse(
                .error(clientShare ? .tooManyRequests : .serviceUnavailable, reason, headers: ["Retry-After": String(retryAfter), "Cache-Control": "no-store"]))
        }
    }
}
