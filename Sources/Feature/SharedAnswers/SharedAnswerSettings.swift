/// How a ``SharedAnswers`` service keeps answers and treats its upstream.
public struct SharedAnswerSettings: Sendable {
    /// How long an expired answer stays in PostgreSQL (served when the upstream fails) before it is deleted.
    public var retention: Duration = .seconds(30 * 86_400)
    /// Bytes of answers held in memory (least recently used leave first).
    public var cacheBytes = 16 << 20
    /// How long a stale answer is reused before the upstream is asked again.
    public var provisional: Duration = .seconds(60)
    /// `Retry-After` after a failure.
    public var retryAfterFailure = 60
    /// No calls for this long after the upstream refused the key (or throttled without `Retry-After`).
    public var pauseAfterRefusal = 600

    public init() {}
}
