import Synchronization

/// A ``BoundedTable`` behind its own lock: what ``AnswerCache`` is built on, and the holder of ready answers of other
/// shapes — the on-demand engine's renderings, which carry what they were made from — under the same rule (bounded in
/// entries and bytes, started over past either).
public final class AnswerTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    // Inlinable (with BoundedTable): a hit, on the event loop, holds the lock for one dictionary lookup.
    @usableFromInline let table: Mutex<BoundedTable<Key, Value>>

    public init(entries: Int, bytes: Int) {
        table = Mutex(BoundedTable(entries: entries, bytes: bytes))
    }

    @inlinable
    public subscript(key: Key) -> Value? { table.withLock { $0[key] } }

    /// Holds `value` for `key` at `cost` bytes (see ``BoundedTable/set(_:for:cost:)``).
    @inlinable
    public func set(_ value: Value, for key: Key, cost: Int) {
        table.withLock { $0.set(value, for: key, cost: cost) }
    }

    public func remove(_ key: Key) {
        table.withLock { $0.remove(key) }
    }

    public func removeAll() {
        table.withLock { $0.removeAll() }
    }

    public var bytes: Int { table.withLock { $0.bytes } }
    public var count: Int { table.withLock { $0.count } }
}
