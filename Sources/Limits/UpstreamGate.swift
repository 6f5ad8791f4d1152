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
    /// One call per key: the caller that starts it asks the budget (and waits its turn) inside it, so the callers
    /// that join it meanwhile ask nothing.
    private let calls = SingleFlight<Key, Attempt>()

    /// What the one call for a key came to, and whose share refused it.
    private enum Attempt: Sendable {
        case answered(Value)
        case refused(UpstreamLimits<Client>.Refused, spentBy: Client?)
    }

    public var budget: RequestBudget<Client> { limits.budget }

    /// - Parameter clock: seconds on a monotonic clock (tests pass their own).
    public convenience init(budget settings: RequestBudget<Client>.Settings, clock: @escaping @Sendable () -> Double) {
        self.init(limits: UpstreamLimits(budget: settings, clock: clock))
    }

    /// A gate of its own keys on limits shared with other gates of the same upstream.
    public init(limits: UpstreamLimits<Client>) {
        self.limits = limits
    }

    /// Joins the call under way for `key`, or starts one that runs `work` when the upstream is not paused and the
    /// budget (and the share of each of `clients`, narrowest first) has a token. A caller a little ahead of its share
    /// waits for its turn (``UpstreamLimits/waitForTurn(after:clients:waited:)``) — and whoever asks for the key
    /// meanwhile waits with it, spending nothing: the share is asked once per call, by the caller that makes it. A
    /// joiner is refused with the call only when the refusal is everyone's (the budget, a pause) or names a share it
    /// counts against too; else it asks for itself (another client joined a call its neighbour could not make).
    public func call(_ key: Key, clients: [Client], _ work: @escaping @Sendable () async -> Value) async -> Outcome {
        var attempt: Attempt
        var asked = 0
        repeat {
            attempt = await calls.value(for: key) { [limits] in await Self.attempt(limits, clients, work) }
            asked += 1
        } while asked <= Self.retries && Self.isOthers(attempt, clients)
        switch attempt {
        case .answered(let value):
            return .answered(value)
        case .refused(var refused, let spentBy):
            refused.by = spentBy.flatMap(clients.firstIndex(of:))
            return .refused(refused)
        }
    }

    /// How often a joiner refused for another client's share asks again (each time joining whatever call is under way).
    private static var retries: Int { 3 }

    /// A refusal for the share of a client that is not one of `clients` (a call another client made and could not).
    private static func isOthers(_ attempt: Attempt, _ clients: [Client]) -> Bool {
        guard case .refused(_, let spentBy?) = attempt else { return false }
        return !clients.contains(spentBy)
    }

    /// The call's maker: a token for each of `clients` (waiting its turn while that is allowed), then `work`.
    private static func attempt(
        _ limits: UpstreamLimits<Client>, _ clients: [Client], _ work: @escaping @Sendable () async -> Value
    ) async -> Attempt {
        guard let refused = await limits.admitWaiting(clients) else { return .answered(await work()) }
        return .refused(refused, spentBy: refused.refusal == .clientShare ? refused.by.map { clients[$0] } : nil)
    }

    /// The same for one client (`nil`: only the shared budget counts).
    public func call(_ key: Key, client: Client?, _ work: @escaping @Sendable () async -> Value) async -> Outcome {
        await call(key, clients: client.map { [$0] } ?? [], work)
    }
}

/// The request budget of an upstream whose clients are spenders (``Spender``: who a request counts as), as features
/// name it (weather shows FMI's in its tests and tools).
public typealias SpenderBudget = RequestBudget<ClientGroup>
