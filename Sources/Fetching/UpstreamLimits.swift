import Synchronization

/// Why an upstream was not asked.
public enum UpstreamRefusal: String, Sendable, CaseIterable {
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

/// What an upstream allows this process, shared by everything that asks it: a request budget (the process's and
/// each client's share) and a pause when the upstream itself says "not before" (`429` with `Retry-After`, a
/// refused key). Several ``UpstreamGate``s may share one (places and geocoding draw on one Geoapify budget).
public final class UpstreamLimits<Client: Hashable & Sendable>: Sendable {
    public let budget: RequestBudget<Client>
    private let pausedUntil = Mutex<Double>(-Double.infinity)
    private let clock: @Sendable () -> Double

    /// - Parameter clock: seconds on a monotonic clock (tests pass their own).
    public init(budget settings: RequestBudget<Client>.Settings, clock: @escaping @Sendable () -> Double) {
        self.clock = clock
        budget = RequestBudget(settings, clock: clock)
    }

    /// `nil` when a call may start now (a token was taken), else why not and the seconds until it could.
    public func admit(_ client: Client?) -> (refusal: UpstreamRefusal, retryAfter: Double)? {
        let pause = pausedFor
        if pause > 0 { return (.paused, pause) }
        switch budget.acquire(for: client) {
        case .granted: return nil
        case .refused(let reason, let retryAfter): return (reason == .budget ? .budget : .clientShare, retryAfter)
        }
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
