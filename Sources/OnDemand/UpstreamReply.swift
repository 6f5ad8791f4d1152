/// What one upstream call gave, as the feature's client reads it.
public enum UpstreamReply<Value: Sendable>: Sendable {
    /// A checked answer to store and serve.
    case answer(Value)
    /// The upstream refused this server's key or requests (`401`, `403`): calls pause for `pause` seconds
    /// (the upstream's ``OnDemandUpstream/Settings/pauseAfterRefusal`` when `nil`). `message` is what a request
    /// that cannot be served is told; `detail` what `/health` and the logs say (never the key).
    case refused(message: String, detail: String, pause: Double? = nil)
    /// The upstream is throttling (`429`): calls pause for `retryAfter` seconds (or
    /// ``OnDemandUpstream/Settings/pauseAfterThrottle``), at most an hour.
    case throttled(message: String, detail: String, retryAfter: Int?)
}

extension UpstreamReply {
    /// The same reply with the answer transformed.
    public func map<Other: Sendable>(_ transform: (Value) -> Other) -> UpstreamReply<Other> {
        switch self {
        case .answer(let value): .answer(transform(value))
        case .refused(let message, let detail, let pause): .refused(message: message, detail: detail, pause: pause)
        case .throttled(let message, let detail, let retryAfter): .throttled(message: message, detail: detail, retryAfter: retryAfter)
        }
    }
}
