import Basics
import Foundation
import Limits

/// What the ``OnDemandCore`` answers a request for a key with: a value (fresh, or stale and why), or nothing to
/// serve and why. Routes render it: the ``OnDemand`` adapter for answers sent as they are, a feature's own
/// route for answers it combines (weather), both through the one refusal rule (``OnDemandUnavailable``).
public enum OnDemandOutcome<Value: Sendable>: Sendable {
    case answer(OnDemandAnswer<Value>)
    case unavailable(OnDemandUnavailable)
}

/// A value as the core holds it in memory and hands it out.
public struct OnDemandAnswer<Value: Sendable>: Sendable {
    public var value: Value
    public var fetchedAt: Date
    /// Served from memory until then: its freshness, or a stale answer's provisional time.
    public var until: Date
    /// Why it is served stale (the upstream failed or could not be asked); `nil`: fresh.
    public var staleBecause: OnDemandUnavailable?

    public var stale: Bool { staleBecause != nil }
}

/// Nothing to serve (or a stale answer served instead): why, when asking again may help, and whose doing it is —
/// the upstream or everyone's budget (`503`), this client's share (`429`), or a credential it lacks (`401`).
public struct OnDemandUnavailable: Error, Sendable, CustomStringConvertible {
    public enum Cause: Sendable, Equatable {
        /// The upstream failed, paused or is spent for everyone.
        case upstream
        /// This client (its address, network or device) has used its share.
        case clientShare
        /// This client may not spend without a credential it did not send (an App Attest token).
        case credential
    }

    /// The sentence, made only when read: a flood's refusals decided from memory never build it (the adapter sends
    /// bodies made once per ``Decided`` case).
    enum Reason: Sendable {
        case text(String)
        case decided(Decided, upstream: String)
    }

    /// Refusals decided from memory alone, before any work: each has a body made once.
    enum Decided: Sendable, Hashable {
        case limits(UpstreamRefusal)
        case dailyShare(ClientGroup.Kind)
    }

    public var retryAfter: Int
    public var cause: Cause
    let why: Reason

    public init(_ reason: String, retryAfter: Int, cause: Cause = .upstream) {
        why = .text(reason)
        self.retryAfter = retryAfter
        self.cause = cause
    }

    init(decided: Decided, upstream: String, retryAfter: Int) {
        why = .decided(decided, upstream: upstream)
        self.retryAfter = retryAfter
        cause = if case .limits(let refusal) = decided, !refusal.isClients { .upstream } else { .clientShare }
    }

    public var reason: String {
        switch why {
        case .text(let text): text
        case .decided(let decided, let upstream): decided.reason(upstream: upstream)
        }
    }

    public var description: String { reason }

    /// The same, said of what could not be served (`no forecast within reach of this point yet: …`).
    public func saying(_ what: String) -> Self {
        Self("\(what): \(reason)", retryAfter: retryAfter, cause: cause)
    }
}

extension OnDemandUnavailable.Decided {
    func reason(upstream: String) -> String {
        switch self {
        case .limits(let refusal): refusal.reason(upstream: upstream)
        case .dailyShare(let kind): kind.shareSpent(upstream: upstream)
        }
    }

}
