import Basics

/// The etiquette Pier keeps with an upstream it asks on behalf of requests: its ``UpstreamLimits`` (a budget with
/// each client's share, the upstream's pause) and at most one call per key at a time. A feature supplies only its
/// keys, its clients and the call.
public final class UpstreamGate<Key: Hashable & Sendable, Client: Hashable & Sendable, Value: Sendable>: Sendable {
    public typealias Refusal = UpstreamRefusal

    public enum Outcome: Sendable {
        /// The call's value: of a call started now, or of one already running for the key (which took no token).
        case answered(Value)
        /// Not asked: why, and the seconds until asking could be allowed (infinity: never).
        case refused(UpstreamLimits<Client>.Refused)
    }

    public let limits: UpstreamLimits<Client>
    private let calls = SingleFlight<Key, Value>()

    public var budget: RequestBudget<Client> { limits.budget }

    /// - Parameter clock: seconds on a monotonic clock (tests pass their own).
    public convenience init(budget settings: RequestBudget<Client>.Settings, clock: @escaping @Sendable () -> Double) {
        self.init(limits: UpstreamLimits(budget: settings, clock: clock))
    }

    /// A gate of its own keys on limits shared with other gates of the same upstream.
    public init(limits: UpstreamLimits<Client>) {
        self.limits = limits
    }

    /// Whether a call for `key` is under way (a caller now would join it and take no token).
    public func isCalling(_ key: Key) -> Bool {
        calls.isRunning(key)
    }

    /// Joins the call running for `key`, or starts `work` when the upstream is not paused and the budget
    /// (and the share of each of `clients`, narrowest first) has a token — decided under the same lock as the
    /// start, so concurrent callers for one key spend one token between them. A caller a little ahead of its
    /// share waits for its turn (``UpstreamLimits/waitForTurn(after:client:waited:)``).
    public func call(_ key: Key, clients: [Client], _ work: @escaping @Sendable () async -> Value) async -> Outcome {
        var waited = 0.0
        while true {
            var refused = UpstreamLimits<Client>.Refused(.budget, retryAfter: 1)
            let task = calls.task(for: key, startingIf: {
                guard let refusal = limits.admit(clients) else { return true }
                refused = refusal
                return false
            }, work)
            if let task { return .answered(await task.value) }
            guard await limits.waitForTurn(after: refused, clients: clients, waited: waited) else { return .refused(refused) }
            waited += refused.retryAfter
        }
    }

    /// The same for one client (`nil`: only the shared budget counts).
    public func call(_ key: Key, client: Client?, _ work: @escaping @Sendable () async -> Value) async -> Outcome {
        await call(key, clients: client.map { [$0] } ?? [], work)
    }
}

/// The request budget of an upstream whose clients are spenders (``Spender``: who a request counts as), as features
/// name it (weather shows FMI's in its tests and tools).
public typealias SpenderBudget = RequestBudget<ClientGroup>
