import Basics
import Foundation
import Synchronization

/// Why an upstream was not asked.
public enum UpstreamRefusal: String, Sendable, CaseIterable {
    /// The process's budget is spent.
    case budget
    /// This client (or a network it belongs to) has used its share of the budget.
    case clientShare = "client_share"
    /// The upstream asked for a pause that has not ended.
    case paused
    /// This client already has as many requests waiting for the upstream as it may.
    case concurrency

    /// Why no call was made, in a sentence naming `upstream` (for the JSON error of a refused request).
    public func reason(upstream: String) -> String {
        switch self {
        case .budget: "the request budget for \(upstream) is spent"
        case .clientShare: "this client has used its share of the request budget for \(upstream)"
        case .paused: "calls to \(upstream) are paused (it refused or rate-limited the last one)"
        case .concurrency: "this client has too many requests waiting for \(upstream) at once"
        }
    }

    /// Whether the client is refused for what it did (`429`) rather than for what everyone did (`503`).
    public var isClients: Bool { self == .clientShare || self == .concurrency }
}

/// What an upstream allows this process, shared by everything that asks it: a request budget (the process's and
/// each client's share) and a pause when the upstream itself says "not before" (`429` with `Retry-After`, a
/// refused key). Several ``UpstreamGate``s may share one (places and geocoding draw on one Geoapify budget).
///
/// A client a little ahead of its rate waits for its turn instead of being refused — an app's screen asks for
/// a few things at once — but for at most ``Settings/maxWait`` and with at most ``Settings/waitingPerClient``
/// requests waiting; `429` is for sustained overuse. A client (its narrowest group) has at most
/// ``Settings/requestsPerClient`` requests on the way to the upstream at once, so that a flood of cold requests
/// from one host cannot hold every database connection.
public final class UpstreamLimits<Client: Hashable & Sendable>: Sendable {
    /// How long a client ahead of its share waits, and how many of its requests may be under way at once.
    public struct Waiting: Sendable, Equatable {
        /// Seconds a request may wait in all for a token (a burst of an app, not a flood).
        public var maxWait: Double
        /// A client's requests waiting for a token at once; more are refused.
        public var waitingPerClient: Int
        /// A client's requests past memory (reading PostgreSQL, waiting, asking the upstream) at once.
        public var requestsPerClient: Int

        public init(maxWait: Double = 1.5, waitingPerClient: Int = 4, requestsPerClient: Int = 8) {
            self.maxWait = maxWait
            self.waitingPerClient = waitingPerClient
            self.requestsPerClient = requestsPerClient
        }

        /// Refused at once (an upstream whose callers have something else to serve meanwhile).
        public static var never: Waiting { Waiting(maxWait: 0) }
    }

    /// A request not admitted: why, the seconds until it could be, and the position of the client (among those
    /// it was counted against) whose share is spent.
    public struct Refused: Sendable, Equatable {
        public var refusal: UpstreamRefusal
        public var retryAfter: Double
        public var by: Int?

        public init(_ refusal: UpstreamRefusal, retryAfter: Double, by: Int? = nil) {
            self.refusal = refusal
            self.retryAfter = retryAfter
            self.by = by
        }
    }

    public let budget: RequestBudget<Client>
    public let waiting: Waiting
    private let pausedUntil = Mutex<Double>(-Double.infinity)
    private let waiters = Mutex<[Client: Int]>([:])
    private let underWay = Mutex<[Client: Int]>([:])
    private let clock: @Sendable () -> Double

    /// - Parameter clock: seconds on a monotonic clock (tests pass their own).
    public init(budget settings: RequestBudget<Client>.Settings, waiting: Waiting = Waiting(), clock: @escaping @Sendable () -> Double) {
        self.clock = clock
        self.waiting = waiting
        budget = RequestBudget(settings, clock: clock)
    }

    /// `nil` when a call may start now (a token was taken for each of `clients`), else why not.
    public func admit(_ clients: [Client]) -> Refused? {
        let pause = pausedFor
        if pause > 0 { return Refused(.paused, retryAfter: pause) }
        switch budget.acquire(for: clients) {
        case .granted: return nil
        case .refused(let reason, let retryAfter, let by): return Refused(reason == .budget ? .budget : .clientShare, retryAfter: retryAfter, by: by)
        }
    }

    /// `nil` when a call may start now for `client` alone.
    public func admit(_ client: Client?) -> Refused? {
        admit(client.map { [$0] } ?? [])
    }

    /// Whether `clients` (narrowest first) would be refused for their own share even after waiting their turn, or
    /// already have as many requests under way or waiting as they may (checked before any work on their behalf;
    /// takes nothing). Ask it only for a request that would make a call: one joining a call under way costs none.
    @_specialize(exported: true, where Client == ClientGroup)
    public func precheck(_ clients: [Client]) -> Refused? {
        let (seconds, by) = budget.clientWait(for: clients)
        if seconds > waiting.maxWait {
            let early = budget.refusedEarly(clients, wait: seconds)
            return early.refusal == .budget ? Refused(.budget, retryAfter: early.retryAfter) : Refused(.clientShare, retryAfter: seconds, by: by)
        }
        if let full = Self.full(clients, in: underWay, limit: waiting.requestsPerClient) {
            return Refused(.concurrency, retryAfter: 1, by: full)
        }
        if seconds > 0, let full = Self.full(clients, in: waiters, limit: waiting.waitingPerClient) {
            return Refused(.clientShare, retryAfter: seconds, by: full)
        }
        return nil
    }

    /// After `refused`, waits for the turn when it comes within what is left of ``Waiting/maxWait`` (`waited` seconds
    /// have passed already) and each of `clients` has fewer requests waiting than it may (``Waiting/waitingPerClient``
    /// for the narrowest, four times as many for the networks around it). True when it waited (ask again), false when
    /// the refusal stands.
    public func waitForTurn(after refused: Refused, clients: [Client], waited: Double) async -> Bool {
        guard refused.refusal != .paused, refused.retryAfter.isFinite, waited + refused.retryAfter <= waiting.maxWait,
            Self.take(clients, in: waiters, limit: waiting.waitingPerClient)
        else { return false }
        try? await Task.sleep(for: .milliseconds(Int((refused.retryAfter * 1000).rounded(.up))))
        Self.release(clients, from: waiters)
        return true
    }

    /// ``admit(_:)``, waiting for the turn while ``waitForTurn(after:clients:waited:)`` allows: `nil` when a call may
    /// start now (its tokens taken), else the refusal that stands.
    public func admitWaiting(_ clients: [Client]) async -> Refused? {
        var waited = 0.0
        while let refused = admit(clients) {
            guard await waitForTurn(after: refused, clients: clients, waited: waited) else { return refused }
            waited += refused.retryAfter
        }
        return nil
    }

    /// Counts a request of `clients` (narrowest first) under way to the upstream; false (and nothing counted) when
    /// one of them already has as many as it may (``Waiting/requestsPerClient`` for the narrowest, four times as
    /// many for the networks around it). Each true is followed by ``finished(_:)``.
    @_specialize(exported: true, where Client == ClientGroup)
    public func start(_ clients: [Client]) -> Bool {
        Self.take(clients, in: underWay, limit: waiting.requestsPerClient)
    }

    @_specialize(exported: true, where Client == ClientGroup)
    public func finished(_ clients: [Client]) {
        Self.release(clients, from: underWay)
    }

    /// The position among `clients` of the first with as many requests under way as it may (for the refusal's metric).
    public func busiest(_ clients: [Client]) -> Int? {
        Self.full(clients, in: underWay, limit: waiting.requestsPerClient)
    }

    /// A network holds many subscribers: it may have this many times the narrowest group's requests at once.
    static var networkFactor: Int { 4 }

    private static func limit(_ base: Int, at index: Int) -> Int {
        index == 0 ? base : base * networkFactor
    }

    /// The position of the first of `clients` whose count is at its limit.
    private static func full(_ clients: [Client], in counts: borrowing Mutex<[Client: Int]>, limit base: Int) -> Int? {
        counts.withLock { counts in
            clients.indices.first { counts[clients[$0], default: 0] >= limit(base, at: $0) }
        }
    }

    /// Counts one more for each of `clients`, or nothing when one of them is at its limit.
    private static func take(_ clients: [Client], in counts: borrowing Mutex<[Client: Int]>, limit base: Int) -> Bool {
        counts.withLock { counts in
            guard !clients.indices.contains(where: { counts[clients[$0], default: 0] >= limit(base, at: $0) }) else { return false }
            for client in clients { counts[client, default: 0] += 1 }
            return true
        }
    }

    private static func release(_ clients: [Client], from counts: borrowing Mutex<[Client: Int]>) {
        counts.withLock { counts in
            for client in clients {
                let left = counts[client, default: 1] - 1
                counts[client] = left > 0 ? left : nil
            }
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
