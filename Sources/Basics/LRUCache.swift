import Synchronization

/// A lock-protected cache bounded in bytes: each entry states its cost, and when the total passes the budget
/// the least recently used entries leave first.
///
/// Entries live in one array threaded by a doubly linked list of indices (most recent at the head), so a hit
/// moves two indices instead of allocating, and the dictionary maps keys to slots.
///
/// The lookups are inlinable: called from another module, a generic class's lock and state were found through the
/// run-time's generic metadata on every hit (a twentieth of a cached weather answer's instructions); specialized in
/// the caller, a hit is the dictionary lookup and two index moves.
public final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let budgetBytes: Int

    @usableFromInline
    struct Node {
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        @usableFromInline var previous: Int32
        @usableFromInline var next: Int32
    }

    @usableFromInline
    struct State {
        @usableFromInline var nodes: [Node] = []
        @usableFromInline var free: [Int32] = []
        @usableFromInline var slots: [Key: Int32] = [:]
        @usableFromInline var head: Int32 = -1
        @usableFromInline var tail: Int32 = -1
        @usableFromInline var bytes = 0
        @usableFromInline var evictions = 0
    }

    @usableFromInline let state = Mutex(State())

    public init(budgetBytes: Int) {
        self.budgetBytes = max(0, budgetBytes)
    }

    /// The value, marked as just used.
    @inlinable
    public subscript(key: Key) -> Value? {
        state.withLock { state in
            guard let slot = state.slots[key] else { return nil }
            Self.moveToFront(slot, in: &state)
            return state.nodes[Int(slot)].value
        }
    }

    /// The value without marking it used (for scans that should not keep entries alive).
    @inlinable
    public func peek(_ key: Key) -> Value? {
        state.withLock { state in state.slots[key].flatMap { state.nodes[Int($0)].value } }
    }

    /// Looks up many keys under one lock, without marking them used; `body` sees each present entry.
    public func peek(_ keys: some Sequence<Key>, _ body: (Key, Value) -> Void) {
        state.withLock { state in
            for key in keys {
                if let slot = state.slots[key], let value = state.nodes[Int(slot)].value { body(key, value) }
            }
        }
    }

    /// Stores `value` as the most recently used entry, then evicts from the other end while over budget, and
    /// returns the evicted keys. An entry costing more than the whole budget is not kept.
    @discardableResult
    public func set(_ value: Value, for key: Key, cost: Int) -> [Key] {
        let cost = max(1, cost)
        return state.withLock { state in
            if let slot = state.slots[key] {
                state.bytes += cost - state.nodes[Int(slot)].cost
                state.nodes[Int(slot)].value = value
                state.nodes[Int(slot)].cost = cost
                Self.moveToFront(slot, in: &state)
            } else {
                let node = Node(key: key, value: value, cost: cost, previous: -1, next: state.head)
                let slot: Int32
                if let reused = state.free.popLast() {
                    slot = reused
                    state.nodes[Int(slot)] = node
                } else {
                    slot = Int32(state.nodes.count)
                    state.nodes.append(node)
                }
                if state.head >= 0 { state.nodes[Int(state.head)].previous = slot }
                state.head = slot
                if state.tail < 0 { state.tail = slot }
                state.slots[key] = slot
                state.bytes += cost
            }
            var evicted: [Key] = []
            while state.bytes > budgetBytes, state.tail >= 0 {
                if let key = state.nodes[Int(state.tail)].key { evicted.append(key) }
                Self.remove(state.tail, from: &state)
                state.evictions += 1
            }
            return evicted
        }
    }

    public func remove(_ key: Key) {
        state.withLock { state in
            if let slot = state.slots[key] { Self.remove(slot, from: &state) }
        }
    }

    public func removeAll() {
        state.withLock { $0 = State(evictions: $0.evictions) }
    }

    /// Total cost of the entries held.
    public var bytes: Int { state.withLock { $0.bytes } }
    public var count: Int { state.withLock { $0.slots.count } }
    /// Entries evicted for space since the start.
    public var evictions: Int { state.withLock { $0.evictions } }

    /// Keys from most to least recently used (for tests and diagnostics).
    public var keysByRecency: [Key] {
        state.withLock { state in
            var keys: [Key] = []
            var slot = state.head
            while slot >= 0 {
                if let key = state.nodes[Int(slot)].key { keys.append(key) }
                slot = state.nodes[Int(slot)].next
            }
            return keys
        }
    }

    @inlinable
    static func moveToFront(_ slot: Int32, in state: inout State) {
        guard state.head != slot else { return }
        unlink(slot, in: &state)
        state.nodes[Int(slot)].previous = -1
        state.nodes[Int(slot)].next = state.head
        if state.head >= 0 { state.nodes[Int(state.head)].previous = slot }
        state.head = slot
        if state.tail < 0 { state.tail = slot }
    }

    /// Reads only the links: copying the whole node would retain and release its key and value on every hit.
    @inlinable
    static func unlink(_ slot: Int32, in state: inout State) {
        let previous = state.nodes[Int(slot)].previous, next = state.nodes[Int(slot)].next
        if previous >= 0 { state.nodes[Int(previous)].next = next } else { state.head = next }
        if next >= 0 { state.nodes[Int(next)].previous = previous } else { state.tail = previous }
    }

    private static func remove(_ slot: Int32, from state: inout State) {
        unlink(slot, in: &state)
        if let key = state.nodes[Int(slot)].key { state.slots[key] = nil }
        state.bytes -= state.nodes[Int(slot)].cost
        state.nodes[Int(slot)] = Node(key: nil, value: nil, cost: 0, previous: -1, next: -1)
        state.free.append(slot)
    }
}
