import AnswerCaching
import Foundation
import HTTPServer
import Metrics
import Parsing
import Scheduling

/// `GET /api/ships` (alias `/ships`) and `POST /api/ships/refresh` (alias `/ships/refresh`).
public struct ShipRoutes: Sendable {
    public static let paths = ["/api/ships", "/ships"]
    public static let refreshPaths = ["/api/ships/refresh", "/ships/refresh"]

    private let service: ShipService
    private let token: BearerToken
    private let refresh: @Sendable () async -> FetchRunner.Result
    /// The week's and each day's answer, encoded once and kept until the ships change or a deadline passes.
    let cache: ResponseCache

    /// - Parameters:
    ///   - maxAge: how long clients may reuse an answer (`Cache-Control: max-age`).
    ///   - refresh: runs the ships fetch job (single-flight: joins a run already in progress).
    public init(
        service: ShipService, token: BearerToken, maxAge: Int = 300, metrics: MetricsRegistry? = nil,
        refresh: @escaping @Sendable () async -> FetchRunner.Result
    ) {
        self.service = service
        self.token = token
        self.refresh = refresh
        let configuration = service.configuration
        cache = ResponseCache(name: "ships", metrics: metrics) { [service] key, now in
            Self.entry(for: key, days: service.days, now: now, configuration: configuration, maxAge: maxAge)
        }
        service.changes.observe { [cache] in cache.invalidate() }
    }

    public func register(in router: inout Router) {
        for path in Self.paths {
            router.on(.get, path) { [cache] request in try Self.list(request, cache: cache) }
        }
        for path in Self.refreshPaths {
            router.on(.post, path) { [self] request in await refresh(request) }
        }
    }

    static func list(_ request: HTTPRequest, cache: ResponseCache) throws -> HTTPResponse {
        var key = ""
        if let text = request.query[literal: "date"] {
            guard let date = CalendarDate(text) else {
                throw HTTPError(.badRequest, "date must be a calendar date written YYYY-MM-DD")
            }
            key = "date=\(date)"
        }
        return cache.response(for: key).response(for: request)
    }

    func refresh(_ request: HTTPRequest) async -> HTTPResponse {
        if let denied = BearerToken.response(for: token.check(request), disabled: "refresh is disabled: the server has no refresh token configured") {
            return denied
        }
        switch await refresh() {
        case let .success(summary):
            let body = RefreshResult(
                daysProcessed: service.configuration.dayCount, routes: summary.itemCount,
                lastUpdated: Timestamp.javaScript(summary.scrapedAt))
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

    /// The answer for a cache key: `""` for the week, `date=YYYY-MM-DD` for one day.
    static func entry(
        for key: String, days stored: [ShipDay], now: Date, configuration: ShipService.Configuration, maxAge: Int
    ) -> ResponseCache.Entry {
        let today = CalendarDate(now, in: configuration.timeZone)
        let midnight = today.adding(days: 1).start(in: configuration.timeZone)
        var days = stored.filter { $0.date >= today }
        guard !days.isEmpty else {
            return ResponseCache.Entry(
                response: CachedResponse(
                    .error(.serviceUnavailable, "no ship data yet", headers: ["Retry-After": "60", "Cache-Control": "no-store"])),
                validUntil: midnight)
        }
        if key.hasPrefix("date="), let date = CalendarDate(String(key.dropFirst(5))) {
            days = days.filter { $0.date == date }
            guard !days.isEmpty else {
                return ResponseCache.Entry(
                    response: CachedResponse(
                        .error(.notFound, "no ship data for \(date)", headers: ["Cache-Control": "no-store"])),
                    validUntil: midnight)
            }
        }
        guard let response = ShipsResponse(days: days, now: now, staleAfter: configuration.staleAfter),
            let body = try? JSONBody.encode(response)
        else {
            return ResponseCache.Entry(response: CachedResponse(.error(.internalServerError, "ship data could not be encoded")), validUntil: now)
        }
        var validUntil = midnight
        if !response.debug.stale, let oldest = days.map(\.scrapedAt).min() {
            validUntil = min(validUntil, oldest.addingTimeInterval(configuration.staleAfter.seconds))
        }
        return ResponseCache.Entry(
            response: CachedResponse(json: body, headers: ["Cache-Control": "public, max-age=\(maxAge)"]),
            validUntil: validUntil)
    }
}
