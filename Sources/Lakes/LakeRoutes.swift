import HTTPServer

/// `GET /api/water-temp` (alias `/api/water-temperature`).
public struct LakeRoutes: Sendable {
    public static let paths = ["/api/water-temp", "/api/water-temperature"]

    private let service: LakeService

    public init(service: LakeService) {
        self.service = service
    }

    public func register(in router: inout Router) {
        for path in Self.paths {
            router.on(.get, path) { [service] request in service.cache.response().response(for: request) }
        }
    }
}
