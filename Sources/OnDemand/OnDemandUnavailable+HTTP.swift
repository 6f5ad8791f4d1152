import Feature
import HTTPServer

extension OnDemandUnavailable {
    /// The one refusal rule, for every route an engine answers: a credential the client lacks is `401` with the
    /// challenge; this client's share spent is `429` (RFC 6585: this client, not the service, should slow down);
    /// anything else `503` — each with `Retry-After` and `Cache-Control: no-store`. `message`: the sentence sent
    /// (by default the reason).
    public func httpError(_ message: String? = nil) -> HTTPError {
        let message = message ?? reason
        if cause == .credential { return Spender.Refusal.httpError(message) }
        return HTTPError(status, message, headers: headers)
    }

    /// The same answer with its `{"error": …}` body made beforehand (``HTTPResponse/errorBody(_:)``: a refusal decided
    /// from memory, sent many times).
    func response(body: [UInt8]) -> HTTPResponse {
        cause == .credential ? httpError().response : .json(body, status: status, headers: headers)
    }

    private var status: HTTPStatus { cause == .clientShare ? .tooManyRequests : .serviceUnavailable }
    private var headers: HTTPHeaders { ["Retry-After": String(retryAfter), "Cache-Control": "no-store"] }
}
