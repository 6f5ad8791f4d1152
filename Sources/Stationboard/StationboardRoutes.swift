import HTTPServer

/// `GET /v1/stationboard?id=…&date=…&limit=…` (also `datetime=`, `transportations[]=`, `type=`):
/// transport.opendata.ch's stationboard with `shipName` on every journey.
public struct StationboardRoutes: Sendable {
    public static let path = "/v1/stationboard"

    private let service: StationboardService
    private let clients: ClientAddress

    /// - Parameter clients: how the client's address is found (trusted proxies), for its share of the budget.
    public init(service: StationboardService, clients: ClientAddress = ClientAddress()) {
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
}
