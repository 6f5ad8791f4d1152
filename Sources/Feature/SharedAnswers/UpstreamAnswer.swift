/// What one upstream call gave, as the feature's client reads it; anything else it throws (a failed
/// transfer or an unexpected status is ``UpstreamError``, an answer that is not what was asked for the
/// feature's own problem).
public enum UpstreamAnswer: Sendable {
    /// A checked answer to keep for `ttl`: `200` with its body, or an answer worth remembering (`404` for a
    /// title that does not exist).
    case answer(status: Int, body: [UInt8], ttl: Duration)
    /// The upstream refused this server's key or its requests (`401`, `403`): calls pause for a while.
    /// `why` is for `/health` and the logs (never the key).
    case refused(why: String)
    /// `429`: calls pause for `retryAfter` seconds (or the service's default).
    case rateLimited(retryAfter: Int?)
}
