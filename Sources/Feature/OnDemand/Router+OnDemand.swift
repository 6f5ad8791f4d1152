import Basics
import Foundation
import HTTPServer

extension Router {
    /// `GET path` answered by an on-demand engine: `parse` reads the request at the time given (a bad parameter throws its `400`);
    /// then, without an engine (no key configured), `notConfigured`; an answer held in memory is sent from the
    /// event loop, anything else waits off it for PostgreSQL or the upstream, on the share of the client
    /// (``HTTPRequest/client``).
    public mutating func onDemand<Source: OnDemandSource>(
        _ path: String, _ engine: OnDemand<Source>?, notConfigured: String = "",
        _ parse: @escaping @Sendable (HTTPRequest, Date) throws -> Source.Request
    ) {
        onDemand(
            path, available: engine != nil, notConfigured: notConfigured, parse,
            cached: { engine?.cachedResponse(for: $0, now: $1) },
            answer: { request, client in
                guard let engine else { return .unavailable("not configured", retryAfter: 3600, clientShare: false) }
                return await engine.response(for: request, client: client)
            })
    }

    /// The same with the lookups given (a route whose requests reuse nearby answers).
    public mutating func onDemand<Request: Sendable>(
        _ path: String, available: Bool, notConfigured: String,
        _ parse: @escaping @Sendable (HTTPRequest, Date) throws -> Request,
        cached: @escaping @Sendable (Request, Date) -> OnDemandResponse?,
        answer: @escaping @Sendable (Request, IPAddress) async -> OnDemandResponse
    ) {
        let refusal = OnDemandResponse.notConfigured(notConfigured)
        hybrid(.get, path) { request in
            // One clock reading per request: parsing (a time asked relative to now), memory and `Age` share it.
            let now = Date()
            let parsed = try parse(request, now)
            guard available else { throw refusal }
            if let hit = cached(parsed, now) { return .response(hit.response(for: request, now: now)) }
            return .later { await answer(parsed, request.client).response(for: request) }
        }
    }
}
