import Basics
import HTTPServer

extension Spender.Refusal {
    /// The one answer to a request that would have spent an upstream's budget or quota without the credential the
    /// operator requires: `401` with the reason, never cached (the same request with a token is answered).
    public static func httpError(_ reason: String) -> HTTPError {
        HTTPError(.unauthorized, reason, headers: ["WWW-Authenticate": "Pier-App-Token", "Cache-Control": "no-store"])
    }
}
