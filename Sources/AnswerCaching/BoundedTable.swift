/// A dictionary bounded in entries and in bytes (each entry states what it costs), kept inside a lock's state by the
/// caches that hold answers of their own: past either bound the next insertion starts it over — cheaper than LRU
/// bookkeeping on every hit, and nobody grows it by inventing keys — and a table started over gives its memory back
/// (a flood's table would otherwise stay at its peak).
///
/// Inlinable: a cache's lookup runs under its lock on every hit, and specialized for its key in the caller's module it
/// holds the lock for a dictionary lookup, not for generic metadata look-ups (two event loops contend for that lock).
public struct BoundedTable<Key: Hashable, Value> {
    public let maximumEntries: Int
    public let maximumBytes: Int
    @usableFromInline var entries: [Key: (value: Value, cost: Int)] = [:]
    /// What the entries held cost, as their insertions said.
    @usableFromInline var held = 0
    @inlinable
    public var bytes: Int { held }

    @inlinable
    public init(entries: Int, bytes: Int) {
        maximumEntries = entries
        maximumBytes = bytes
    }

    @inlinable
    public subscript(key: Key) -> Value? { entries[key]?.value }

    @inlinable
    public var count: Int { entries.count }

    /// Holds `value` for `key` at `cost` bytes, starting over first when it would pass a bound; an entry costing more
    /// than the whole table may is not held.
    @inlinable
    public mutating func set(_ value: Value, for key: Key, cost: Int) {
        guard cost <= maximumBytes else { return }
        let replaced = entries[key]?.cost
        if entries.count - (replaced == nil ? 0 : 1) >= maximumEntries || held - (replaced ?? 0) + cost > maximumBytes {
            removeAll()
        } else {
            held -= replaced ?? 0
        }
        entries[key] = (value, cost)
        held += cost
    }

    @inlinable
    public mutating func remove(_ key: Key) {
        if let removed = entries.removeValue(forKey: key) { held -= removed.cost }
    }

    /// Forgets everything, giving the memory back.
    @inlinable
    public mutating func removeAll() {
        entries = [:]
        held = 0
    }
}

extension BoundedTable: Sendable where Key: Sendable, Value: Sendable {}
