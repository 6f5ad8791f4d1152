import HTTPServer

extension SharedAnswer {
    /// The usual HTTP answer: the stored body as JSON with its ETag and the freshness left as `max-age` (stale:
    /// `X-Pier-Stale: <source>` + `Warning: 110`); `503` (or `429` when this client's share is spent) +
    /// `Retry-After` when nothing can be served. A route renders remembered statuses (`404`, `400`) itself first.
    public func response(source: String) -> CachedResponse {
        switch self {
        case .answer(let stored, let freshFor, let stale):
            var headers: HTTPHeaders = ["Cache-Control": "public, max-age=\(freshFor)"]
            if stale {
                headers.add("X-Pier-Stale", source)
                headers.add("Warning", "110 - \"Response is Stale\"")
            }
            return CachedResponse(json: stored.body, headers: headers)
        case .unavailable(let reason, let retryAfter, let clientShare):
            return CachedResponse(.error(
                clientShare ? .tooManyRequests : .serviceUnavailable, reason, headers: ["Retry-After": String(retryAfter), "Cache-Control": "no-store"]))
        }
    }
}
