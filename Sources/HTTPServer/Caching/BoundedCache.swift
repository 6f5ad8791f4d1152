import Synchronization

/// A lock-protected dictionary with a size bound: when it is full the next insertion starts it over. Cheaper
/// than LRU bookkeeping on every hit, and a client cannot grow it without bound by inventing keys; a cleared
/// cache only costs one rebuild per key still in use.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let capacity: Int
    private let entries = Mutex<[Key: Value]>([:])

    public init(capacity: Int) {
        self.capacity = capacity
    }

    public subscript(key: Key) -> Value? {
        entries.withLock { $0[key] }
    }

    public func set(_ value: Value, for key: Key) {
        entries.withLock { entries in
            if entries.count >= capacity && entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
    }

    public func removeAll() {
        entries.withLock { $0.removeAll(keepingCapacity: true) }
    }
}
