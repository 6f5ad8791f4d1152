import Basics
import Synchronization

/// A lock-protected ``BoundedTable`` bounded in entries only: when it is full the next insertion starts it over.
/// Cheaper than LRU bookkeeping on every hit, and a client cannot grow it without bound by inventing keys; a cleared
/// cache only costs one rebuild per key still in use.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let capacity: Int
    private let entries: Mutex<BoundedTable<Key, Value>>

    public init(capacity: Int) {
        self.capacity = capacity
        entries = Mutex(BoundedTable(entries: capacity, bytes: .max))
    }

    public subscript(key: Key) -> Value? {
        entries.withLock { $0[key] }
    }

    public func set(_ value: Value, for key: Key) {
        entries.withLock { $0.set(value, for: key, cost: 0) }
    }

    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
