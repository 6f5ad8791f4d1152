/// How an ``OnDemand`` engine keeps answers.
public struct OnDemandSettings: Sendable {
    /// Bytes of memory for answers and their renderings (half each).
    public var cacheBytes = 16 << 20
    /// How long a stale answer is served before the upstream is asked again.
    public var provisional: Duration = .seconds(60)
    /// `Retry-After` after a failed call.
    public var retryAfterFailure = 60

    public init(cacheBytes: Int = 16 << 20, provisional: Duration = .seconds(60), retryAfterFailure: Int = 60) {
        self.cacheBytes = cacheBytes
        self.provisional = provisional
        self.retryAfterFailure = retryAfterFailure
    }
}
