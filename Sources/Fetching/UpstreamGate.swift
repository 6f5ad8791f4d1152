import Synchronization

/// The etiquette Pier keeps with an upstream it asks on behalf of requests: a request budget (the process's
/// and each client's share), at most one call per key at a time, and a pause when the upstream itself says
/// "not before" (`429` with `Retry-After`). A feature supplies only its keys, its clients and the call.
public final class UpstreamGate<Key: Hashable & Sendable, Client: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Why no call was made.
    public enum Refusal: String, Sendable, CaseIterable {
        /// The process's budget is spent.
        case budget
        /// This client has used its share of the budget.
        case clientShare = "client_share"
        /// The upstream asked for a pause that has not ended.
        case paused

        /// Why no call was made, in a sentence naming `upstream` (for the JSON error of a refused request).
        public func reason(upstream: String) -> String {
            switch self {
            case .budget: "the request budget for \(upstream) is spent"
            case .clientShare: "this client has used its share of the request budget for \(upstream)"
            case .paused: "calls to \(upstream) are paused (it refused or rate-limited the last one)"
            }
        }
    }

    public enum Outcome: Sendable {
        /// The call's value: of a call started now, or of one already running for the key (which took no token).
        case answered(Value)
        /// Not asked; `retryAfter` seconds until asking could be allowed (infinity: never).
        case refused(Refusal, retryAfter: Double)
    }

    public let budget: RequestBudget<Client>
    private let calls = SingleFlight<Key, Value>()
    private let pausedUntil = Mutex<Double>(-Double.infinity)
    private let clock: @Sendable () -> Double

    /// - Parameter clock: seconds on a monotonic clock (tests pass their own).
    public init(budget settings: RequestBudget<Client>.Settings, clock: @escaping @Sendable () -> Double) {
        self.clock = clock
        budget = RequestBudget(settings, clock: clock)
    }

    /// Joins the call running for `key`, or starts `work` when the upstream is not paused and the budget
    /// (and `client`'s share) has a token — decided under the same lock as the start, so concurrent callers
    /// for one key spend one token between them.
    public func call(_ key: Key, client: Client?, _ work: @escaping @Sendable () async -> Value) async -> Outcome {
        var refusal: (Refusal, Double) = (.budget, 1)
        let task = calls.task(for: key, startingIf: {
            let pause = pausedFor
            if pause > 0 {
                refusal = (.paused, pause)
                return false
            }
            switch budget.acquire(for: client) {
            case .granted: return true
            case .refused(let reason, let retryAfter):
                refusal = (reason == .budget ? .budget : .clientShare, retryAfter)
                return false
            }
        }, work)
        guard let task else { return .refused(refusal.0, retryAfter: refusal.1) }
        return .answered(await task.value)
    }

    /// No new call until `seconds` from now (an upstream's `Retry-After`); a longer pause already set stays.
    public func pause(seconds: Double) {
        let until = clock() + max(0, seconds)
        pausedUntil.withLock { $0 = max($0, until) }
    }

    /// Seconds left of the upstream's pause (0 when none).
    public var pausedFor: Double {
        max(0, pausedUntil.withLock { $0 } - clock())
    }
}
