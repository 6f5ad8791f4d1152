import Fetching
import Foundation
import HTTPServer

/// `GET /api/ships` (alias `/ships`) and `POST /api/ships/refresh` (alias `/ships/refresh`).
public struct ShipRoutes: Sendable {
    public static let paths = ["/api/ships", "/ships"]
    public static let refreshPaths = ["/api/ships/refresh", "/ships/refresh"]

    private let service: ShipService
    private let token: BearerToken
    private let refresh: @Sendable () async -> FetchRunner.Result

    /// - Parameter refresh: runs the ships fetch job (single-flight: joins a run already in progress).
    public init(service: ShipService, token: BearerToken, refresh: @escaping @Sendable () async -> FetchRunner.Result) {
        self.service = service
        self.token = token
        self.refresh = refresh
    }

    public func register(in router: inout Router) {
        for path in Self.paths {
            router.on(.get, path) { [service] request in try Self.list(request, service: service) }
        }
        for path in Self.refreshPaths {
            router.on(.post, path) { [self] request in await refresh(request) }
        }
    }

    static func list(_ request: HTTPRequest, service: ShipService) throws -> HTTPResponse {
        var key = ""
        if let text = request.query["date"] {
            guard let date = CalendarDate(text) else {
                throw HTTPError(.badRequest, "date must be a calendar date written YYYY-MM-DD")
            }
            key = "date=\(date)"
        }
        return service.cache.response(for: key).response(for: request)
    }

    func refresh(_ request: HTTPRequest) async -> HTTPResponse {
        if let denied = BearerToken.response(for: token.check(request)) { return denied }
        switch await refresh() {
        case let .success(summary):
            let body = RefreshResult(
                daysProcessed: service.configuration.dayCount, routes: summary.itemCount,
                lastUpdated: Timestamp.iso8601(summary.scrapedAt))
            return .json((try? JSONBody.encode(body)) ?? [], headers: ["Cache-Control": "no-store"])
        case let .failure(error):
            if case .database = error {
                return .error(.serviceUnavailable, "the database is unavailable; nothing was changed")
            }
            return .error(.badGateway, "ZSG scrape failed, the data served before is kept: \(error)")
        }
    }

    /// The body of a successful refresh (contract).
    struct RefreshResult: Codable {
        var daysProcessed: Int
        var routes: Int
        var lastUpdated: String
    }
}
