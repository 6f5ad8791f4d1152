import Feature
import Foundation
import HTTPServer

/// `GET /v1/nsw/departures?stop=…&mode=…` (also `date=YYYYMMDD`, `time=HHmm`): the next departures from a
/// Sydney stop in the shape the Trip Planner app decodes (`{"stopEvents": [ … ]}`).
public struct NSWDeparturesRoutes: Sendable {
    public static let path = "/v1/nsw/departures"

    /// A ready-encoded answer and when its data was fetched (the `Age` each request is sent).
    public struct Prepared: Sendable {
        public var cached: CachedResponse
        public var fetchedAt: Date?

        public func response(for request: HTTPRequest, now: Date = Date()) -> HTTPResponse {
            var response = cached.response(for: request)
            if let fetchedAt { response.headers.add("Age", String(max(0, Int(now.timeIntervalSince(fetchedAt).rounded(.down))))) }
            return response
        }
    }

    private let service: NSWDeparturesService<Prepared>?
    private let clients: ClientAddress

    /// - Parameter service: `nil` when no TfNSW key is configured (the route then says so).
    public init(service: NSWDeparturesService<Prepared>?, clients: ClientAddress = ClientAddress()) {
        self.service = service
        self.clients = clients
    }

    public func register(in router: inout Router) {
        router.hybrid(.get, Self.path) { [service, clients] request in
            let now = Date()
            let query = try DepartureQuery(request, now: now)
            guard let service else { throw Self.notConfigured }
            if let cached = service.cachedResponse(for: query, now: now) { return .response(cached.response(for: request, now: now)) }
            return .later { await service.response(for: query, client: clients.client(of: request)).response(for: request) }
        }
    }

    static let notConfigured = HTTPError(.serviceUnavailable, "Sydney departures are not configured on this server", headers: ["Retry-After": "3600"])

    /// The HTTP answer for a service's answer, made once per answer: the departures with their ETag,
    /// `max-age` = how long they hold from when they were fetched (with `Age`, what is left), stale:
    /// `X-Pier-Stale: nsw` + `Warning: 110`; `404` for an unknown stop (cacheable); `503` (or `429` when this
    /// client's share is spent) + `Retry-After` when nothing can be served.
    @Sendable public static func prepare(_ answer: NSWDeparturesAnswer) -> Prepared {
        switch answer {
        case .departures(let body, let fetchedAt, let lifetime, let stale):
            var headers: HTTPHeaders = ["Cache-Control": "public, max-age=\(lifetime)"]
            if stale {
                headers.add("X-Pier-Stale", "nsw")
                headers.add("Warning", "110 - \"Response is Stale\"")
            }
            return Prepared(cached: CachedResponse(json: body, headers: headers), fetchedAt: fetchedAt)
        case .unknownStop(let stop, let freshFor):
            return Prepared(
                cached: CachedResponse(
                    .error(.notFound, "TfNSW knows no stop with id \(stop)", headers: ["Cache-Control": "public, max-age=\(freshFor)"])),
                fetchedAt: nil)
        case .unavailable(let reason, let retryAfter, let clientShare):
            return Prepared(
                cached: CachedResponse(
                    .error(
                        clientShare ? .tooManyRequests : .serviceUnavailable, reason,
                        headers: ["Retry-After": String(retryAfter), "Cache-Control": "no-store"])),
                fetchedAt: nil)
        }
    }
}
