import Basics
import Synchronization

/// A budget of upstream requests shared by a whole process: one token bucket for everyone, plus a smaller
/// bucket per client so that one client (a scraper, a runaway app) cannot spend all of it.
///
/// A client may take at most `clientShare` of the rate and of the burst (at least one request). A request may
/// count against several clients at once (an address and the networks it belongs to, ``ClientGroup``): it is
/// granted only when each of them has a token, so a network's share is one share whatever number of addresses
/// it uses. Clients whose bucket is full again are forgotten, so the table holds only those that spent
/// recently — at most about the burst's worth of clients per refill period, whatever the number of clients.
public final class RequestBudget<Client: Hashable & Sendable>: Sendable {
    public typealias Settings = BudgetSettings

    /// Why a request was refused.
    public enum Refusal: String, Sendable, CaseIterable {
        /// The process's budget is spent.
        case budget
        /// The budget has tokens, but this client has used its share.
        case clientShare = "client_share"
    }

    public enum Decision: Sendable, Equatable {
        case granted
        /// Refused; `retryAfter` seconds until this client could be granted one (infinity: never); `by` the
        /// position of the client whose share is spent (`nil` for the shared budget).
        case refused(Refusal, retryAfter: Double, by: Int? = nil)
    }

    /// The state for `/health`.
    public struct Snapshot: Sendable, Equatable, Encodable {
        public var tokens: Double
        public var settings: Settings
        public var granted: Int
        public var refused: [Refusal: Int]
        /// Clients with a partly spent share.
        public var clients: Int
        public var secondsUntilToken: Double

        enum CodingKeys: String, CodingKey {
            case ratePerMinute = "requests_per_minute", burst, clientShare = "client_share", tokens, retryAfter = "retry_after_s", granted
            case refused, refusedClientShare = "refused_client_share", clientsLimited = "clients_limited"
        }

        /// `/health`'s object: `requests_per_minute`, `burst`, `client_share`, `tokens` (one decimal), `retry_after_s`
        /// (null when never), `granted`, `refused`, `refused_client_share`, `clients_limited`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(settings.ratePerMinute, forKey: .ratePerMinute)
            try container.encode(settings.burst, forKey: .burst)
            try container.encode(settings.clientShare, forKey: .clientShare)
            try container.encode((tokens * 10).rounded(.down) / 10, forKey: .tokens)
            try container.encodeIfPresent(secondsUntilToken.isFinite ? Int(secondsUntilToken.rounded(.up)) : nil, forKey: .retryAfter)
            try container.encode(granted, forKey: .granted)
            try container.encode(refused[.budget] ?? 0, forKey: .refused)
            try container.encode(refused[.clientShare] ?? 0, forKey: .refusedClientShare)
            try container.encode(clients, forKey: .clientsLimited)
        }
    }

    private struct State {
        var shared: TokenBucket
        var clients: [Client: TokenBucket] = [:]
        var granted = 0
        var refused: [Refusal: Int] = [:]
    }

    public let settings: Settings
    private let clock: @Sendable () -> Double
    private let state: Mutex<State>

    /// - Parameter clock: seconds on a monotonic clock (tests pass their own).
    public init(_ settings: Settings, clock: @escaping @Sendable () -> Double) {
        var settings = settings
        settings.clientShare = min(1, max(0.0001, settings.clientShare))
        self.settings = settings
        self.clock = clock
        let capacity = settings.ratePerMinute > 0 ? Double(settings.burst) : 0
        state = Mutex(State(shared: TokenBucket(ratePerSecond: settings.ratePerMinute / 60, capacity: capacity, now: clock())))
    }

    /// Takes one request from the budget for `client` (`nil`: not attributed to a client, only the shared
    /// bucket counts), or says why not and when to try again.
    public func acquire(for client: Client?) -> Decision {
        acquire(for: client.map { [$0] } ?? [])
    }

    /// Takes one request counted against each of `clients` (and the shared bucket) — all or nothing. A request of
    /// several `units` (rows) needs one token in each bucket and leaves the rest of its cost as a debt there
    /// (``TokenBucket/take(now:units:)``).
    @_specialize(exported: true, where Client == ClientGroup)
    public func acquire(for clients: [Client], units: Int = 1) -> Decision {
        let now = clock()
        let cost = Double(max(1, units))
        return state.withLock { state in
            var own = clients.map { state.clients[$0] ?? newClientBucket(now: now) }
            guard state.shared.hasToken(now: now) else {
                state.refused[.budget, default: 0] += 1
                return .refused(.budget, retryAfter: Self.wait(state.shared, own, now: now))
            }
            for index in own.indices where !own[index].take(now: now, units: cost) {
                state.refused[.clientShare, default: 0] += 1
                return .refused(.clientShare, retryAfter: Self.wait(state.shared, own, now: now), by: index)
            }
            _ = state.shared.take(now: now, units: cost)
            state.granted += 1
            remember(clients, own, in: &state, now: now)
            return .granted
        }
    }

    /// Charges `units` more to each of `clients` and the shared bucket, refusing nothing: what a granted request
    /// turned out to cost (the rows a delete removed), paid as a debt before their next request.
    public func charge(_ clients: [Client], units: Int) {
        guard units > 0 else { return }
        let now = clock()
        state.withLock { state in
            var own = clients.map { state.clients[$0] ?? newClientBucket(now: now) }
            for index in own.indices { own[index].charge(now: now, units: Double(units)) }
            state.shared.charge(now: now, units: Double(units))
            remember(clients, own, in: &state, now: now)
        }
    }

    private func remember(_ clients: [Client], _ own: [TokenBucket], in state: inout State, now: Double) {
        for (client, bucket) in zip(clients, own) {
            if state.clients[client] == nil, state.clients.count >= 1024 {
                state.clients = state.clients.filter { !$0.value.isFull(now: now) }
            }
            state.clients[client] = bucket
        }
    }

    /// A request refused from the buckets as they are, before it asked for a token (a client whose own bucket
    /// would make it wait: ``UpstreamLimits/precheck(_:joining:)``): counted as ``acquire(for:)`` counts its refusals
    /// and named as it would name it — everyone's budget when the shared bucket is empty too (no client's doing),
    /// else the client's share — with the seconds until a token, at least `wait`.
    @_specialize(exported: true, where Client == ClientGroup)
    public func refusedEarly(_ clients: [Client], wait: Double) -> (refusal: Refusal, retryAfter: Double) {
        let now = clock()
        return state.withLock { state in
            let refusal: Refusal = state.shared.hasToken(now: now) ? .clientShare : .budget
            state.refused[refusal, default: 0] += 1
            return (refusal, max(wait, state.shared.secondsUntilToken(now: now)))
        }
    }

    /// Seconds until `client` could be granted a request (0: now).
    public func retryAfter(for client: Client?) -> Double {
        retryAfter(for: client.map { [$0] } ?? [])
    }

    /// Seconds until a request counted against each of `clients` could be granted (0: now).
    public func retryAfter(for clients: [Client]) -> Double {
        let now = clock()
        return state.withLock { state in
            Self.wait(state.shared, clients.compactMap { state.clients[$0] }, now: now)
        }
    }

    /// Seconds until each of `clients` has a token (the shared budget left out: it is not theirs to spend), and
    /// the position of the one that waits longest (`nil` when none waits).
    @_specialize(exported: true, where Client == ClientGroup)
    public func clientWait(for clients: [Client]) -> (seconds: Double, by: Int?) {
        let now = clock()
        return state.withLock { state in
            var longest: (seconds: Double, by: Int?) = (0, nil)
            for (index, client) in clients.enumerated() {
                let wait = state.clients[client]?.secondsUntilToken(now: now) ?? 0
                if wait > longest.seconds { longest = (wait, index) }
            }
            return longest
        }
    }

    public func snapshot() -> Snapshot {
        let now = clock()
        return state.withLock { state in
            state.shared.refill(now: now)
            state.clients = state.clients.filter { !$0.value.isFull(now: now) }
            return Snapshot(
                tokens: state.shared.tokens, settings: settings, granted: state.granted, refused: state.refused,
                clients: state.clients.count, secondsUntilToken: state.shared.secondsUntilToken(now: now))
        }
    }

    private func newClientBucket(now: Double) -> TokenBucket {
        let capacity = settings.ratePerMinute > 0 ? max(1, (Double(settings.burst) * settings.clientShare).rounded(.down)) : 0
        return TokenBucket(ratePerSecond: settings.ratePerMinute / 60 * settings.clientShare, capacity: capacity, now: now)
    }

    private static func wait(_ shared: TokenBucket, _ own: [TokenBucket], now: Double) -> Double {
        own.reduce(shared.secondsUntilToken(now: now)) { max($0, $1.secondsUntilToken(now: now)) }
    }
}

/// An upstream's request budget as a feature writes it: the rate, the burst and one client's share — the one settings
/// type of every budget, whoever the clients are counted as (``RequestBudget``).
public struct BudgetSettings: Sendable, Equatable {
    /// Sustained requests per minute; `0` refuses every request.
    public var ratePerMinute: Double
    /// Requests allowed at once above the sustained rate (the bucket's capacity).
    public var burst: Int
    /// The part of the rate and the burst one client may use, in (0, 1].
    public var clientShare: Double

    public init(ratePerMinute: Double = 60, burst: Int = 20, clientShare: Double = 0.25) {
        self.ratePerMinute = ratePerMinute
        self.burst = burst
        self.clientShare = clientShare
    }
}
