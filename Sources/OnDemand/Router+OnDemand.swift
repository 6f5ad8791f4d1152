import Basics
import Foundation
import HTTPServer
import Identity

extension Router {
    /// `GET path` answered by an on-demand engine: `parse` reads the request at the time given (a bad parameter
    /// throws its `400`); an answer held in memory is sent from the event loop, and so is the refusal of a client
    /// whose share is spent (``OnDemand/refusal(for:client:now:)``: it costs what a hit costs); anything else waits
    /// off the loop for PostgreSQL or the upstream, on the share of the client (``Spenders``: its address, or the device
    /// its App Attest token proves — asked only here, past memory) unless it joins a request for the same key already
    /// past memory (``OnDemandClaim``).
    ///
    /// Inlinable, with the one below: specialized in the feature for its source and request, a memory hit runs without
    /// looking its types' generic metadata up (the engine's table, the request's `Optional`) on every request.
    @inlinable
    public mutating func onDemand<Source: OnDemandSource>(
        _ path: String, _ engine: OnDemand<Source>, _ parse: @escaping @Sendable (HTTPRequest, Date) throws -> Source.Request
    ) {
        onDemand(
            path, parse, spenders: engine.upstream.spenders, cached: engine.cachedResponse(for:now:), admission: engine.admission(for:client:now:),
            answer: { await engine.response(for: $0, client: $1, claim: $2) })
    }

    /// The same for an upstream that needs a key: without an engine (no key configured), a request that parses is
    /// answered ``OnDemandResponse/notConfigured(_:)`` with `notConfigured`.
    public mutating func onDemand<Source: OnDemandSource>(
        _ path: String, _ engine: OnDemand<Source>?, notConfigured: String,
        _ parse: @escaping @Sendable (HTTPRequest, Date) throws -> Source.Request
    ) {
        guard let engine else { return self.notConfigured(path, notConfigured, parse) }
        onDemand(path, engine, parse)
    }

    /// The same with the lookups given (a route whose requests reuse nearby answers); `answer` runs with the claim
    /// `admission` let the request through with, and need not ask again.
    @inlinable
    public mutating func onDemand<Request: Sendable>(
        _ path: String, _ parse: @escaping @Sendable (HTTPRequest, Date) throws -> Request, spenders: Spenders,
        cached: @escaping @Sendable (Request, Date) -> OnDemandResponse?,
        admission: @escaping @Sendable (Request, Spender, Date) -> OnDemandAdmission<OnDemandResponse>,
        answer: @escaping @Sendable (Request, Spender, OnDemandClaim) async -> OnDemandResponse
    ) {
        hybrid(.get, path) { request in
            // One clock reading per request: parsing (a time asked relative to now), memory and `Age` share it.
            let now = Date()
            let parsed = try parse(request, now)
            if let hit = cached(parsed, now) { return .response(hit.response(for: request, now: now)) }
            let client = spenders.spender(of: request)
            switch admission(parsed, client, now) {
            case .refused(let refused): return .response(refused.response(for: request, now: now))
            case .admitted(let claim): return .later { await answer(parsed, client, claim).response(for: request) }
            }
        }
    }

    /// `GET path` of an upstream without a configured key: a bad request is still named (`parse`'s `400`), any other
    /// is `503` with `message` and `Retry-After: 3600`.
    public mutating func notConfigured<Request>(
        _ path: String, _ message: String, _ parse: @escaping @Sendable (HTTPRequest, Date) throws -> Request
    ) {
        let refusal = OnDemandResponse.notConfigured(message)
        on(.get, path) { request throws -> HTTPResponse in
            _ = try parse(request, Date())
            throw refusal
        }
    }
}
