import Basics
import Feature
import Foundation
import HTTPServer
import Synchronization

/// The HTTP answer of an ``OnDemand`` engine, made once per answer and kept in memory — the one place where an
/// on-demand answer becomes HTTP:
/// - a document: `200` with its `ETag` and `Cache-Control: public, max-age=<freshness left>`; stale:
///   `X-Pier-Stale: <source>` and `Warning: 110`; for sources that report age, `max-age` counts from the fetch
///   and each request is sent `Age`;
/// - missing (`404`) or refused by the upstream (`400`): `{"error": …}`, cacheable for the answer's freshness;
/// - nothing to serve: ``OnDemandUnavailable/httpError(_:)`` — `503`, `429` when it is this client's share that is
///   spent, `401` for a missing credential — with `Retry-After` (``RetryAfter``: whole seconds, 1 to 3600).
public struct OnDemandResponse: Sendable {
    public let cached: CachedResponse
    /// When the data was fetched, for sources that send `Age`.
    public var fetchedAt: Date? { fetchedSeconds.map(Date.init(timeIntervalSinceReferenceDate:)) }
    /// ``fetchedAt`` as seconds since the reference date: a `Date` (resilient) made every copy of an answer go through
    /// its type's metadata.
    private let fetchedSeconds: Double?
    /// The answer with the `Age` it was last sent with, ready to send; `nil` without `Age`.
    private let aged: AgedResponse?

    public init(cached: CachedResponse, fetchedAt: Date?) {
        self.cached = cached
        fetchedSeconds = fetchedAt?.timeIntervalSinceReferenceDate
        aged = fetchedAt == nil ? nil : AgedResponse()
    }

    public var entityTag: String? { cached.entityTag }

    /// The answer as made, without `Age` and without `If-None-Match`.
    public var response: HTTPResponse { cached.response }

    /// The answer for `request` (`304` for a matching `If-None-Match`; `Age` when the source reports it).
    public func response(for request: HTTPRequest, now: Date? = nil) -> HTTPResponse {
        var response = cached.response(for: request)
        guard let fetchedSeconds else { return response }
        let age = max(0, Int(((now ?? Date()).timeIntervalSinceReferenceDate - fetchedSeconds).rounded(.down)))
        if let aged, response.status == .ok {
            return aged.response(age: age) {
                response.headers.add("Age", String(age))
                return response.preparedForSending()
            }
        }
        response.headers.add("Age", String(age))
        return response
    }

    static func rendered(_ body: OnDemandRendering.Body, maxAge: Int, stale: Bool, source: String, fetchedAt: Date?) -> Self {
        let cacheControl: HTTPHeaders = ["Cache-Control": "public, max-age=\(maxAge)"]
        switch body {
        case .document(let bytes):
            var headers = cacheControl
            if stale { headers.markStale(source) }
            return Self(cached: CachedResponse(json: bytes, headers: headers), fetchedAt: fetchedAt)
        case .missing(let message, let members):
            // The contract's `{"error": …}` with the members kept beside it.
            let json = JSONWriter.make { json in
                json.object { json in
                    json.member("error", message)
                    for member in members { json.member(member.name, member.value) }
                }
            }
            return Self(cached: CachedResponse(.json(json, status: .notFound, headers: cacheControl)), fetchedAt: nil)
        case .refused(let message):
            return Self(cached: CachedResponse(.error(.badRequest, message, headers: cacheControl)), fetchedAt: nil)
        }
    }

    /// A route whose upstream has no key configured: `503` with `Retry-After: 3600` and `message`.
    public static func notConfigured(_ message: String) -> HTTPError {
        HTTPError(.serviceUnavailable, message, headers: ["Retry-After": "3600"])
    }
}

/// A `200` with its `Age`, kept for the next request of the same second: a field added to a prepared answer made its
/// whole head encode again on every send (a third of a cached NSW board's instructions); now once a second.
final class AgedResponse: Sendable {
    private let last = Mutex<(age: Int, response: HTTPResponse)?>(nil)

    func response(age: Int, make: () -> HTTPResponse) -> HTTPResponse {
        if let held = last.withLock({ $0?.age == age ? $0?.response : nil }) { return held }
        let made = make()
        last.withLock { $0 = (age, made) }
        return made
    }
}
