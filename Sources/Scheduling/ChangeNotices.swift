import Synchronization

/// The change feed's notices that carry a body: what a feature's table trigger said changed, row by row (Next Wave's
/// check-ins, for Realtime's subscribers). Unlike a bare ``ChangeTopic`` — "reload this" — a notice is published by the
/// database itself (`pier_announce(topic, body)`, in the transaction that changed the rows), so every process hears it,
/// the writer's own included, once the transaction commits. The body is the publishing feature's format; the feed
/// only carries it.
public final class ChangeNotices: Sendable {
    private let subscribers = Mutex<[ChangeTopic: [@Sendable (String) -> Void]]>([:])

    public init() {}

    /// Calls `handler` with the body of every notice of `topic`, on the feed's thread, in the order they were
    /// committed: it must not block (hand slow work on).
    public func subscribe(_ topic: ChangeTopic, _ handler: @escaping @Sendable (String) -> Void) {
        subscribers.withLock { $0[topic, default: []].append(handler) }
    }

    /// Hands `body` to `topic`'s subscribers, outside the lock.
    public func deliver(_ topic: ChangeTopic, body: String) {
        for handler in subscribers.withLock({ $0[topic] ?? [] }) { handler(body) }
    }

    /// Whether anybody listens for `topic` (a feed without subscribers ignores its notices).
    public func hasSubscribers(_ topic: ChangeTopic) -> Bool {
        subscribers.withLock { $0[topic] != nil }
    }
}
