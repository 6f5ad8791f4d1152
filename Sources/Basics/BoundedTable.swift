/// A dictionary bounded in entries and in bytes (each entry states what it costs), kept inside a lock's state by the
/// caches that hold answers of their own: past either bound the next insertion starts it over — cheaper than LRU
/// bookkeeping on every hit, and nobody grows it by inventing keys — and a table started over gives its memory back
/// (a flood's table would otherwise stay at its peak).
public struct BoundedTable<Key: Hashable, Value> {
    public let maximumEntries: Int
    public let maximumBytes: Int
    private var entries: [Key: (value: Value, cost: Int)] = [:]
    /// What the entries held cost, as their insertions said.
    public private(set) var bytes = 0

    public init(entries: Int, bytes: Int) {
        maximumEntries = entries
        maximumBytes = bytes
    }

    public subscript(key: Key) -> Value? { entries[key]?.value }

    public var count: Int { entries.count }

    /// Holds `value` for `key` at `cost` bytes, starting over first when it would pass a bound; an entry costing more
    /// than the whole table may is not held.
    public mutating func set(_ value: Value, for key: Key, cost: Int) {
        guard cost <= maximumBytes else { return }
        let replaced = entries[key]?.cost
        if entries.count - (replaced == nil ? 0 : 1) >= maximumEntries || bytes - (replaced ?? 0) + cost > maximumBytes {
            removeAll()
        } else {
            bytes -= replaced ?? 0
        }
        entries[key] = (value, cost)
        bytes += cost
    }

    public mutating func remove(_ key: Key) {
        if let removed = entries.removeValue(forKey: key) { bytes -= removed.cost }
    }

    /// Forgets everything, giving the memory back.
    public mutating func removeAll() {
        entries = [:]
        bytes = 0
    }
}

extension BoundedTable: Sendable where Key: Sendable, Value: Sendable {}
