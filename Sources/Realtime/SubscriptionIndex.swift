/// Where each joined channel's bindings are found by the changes they can match: by table, event and filter value. A
/// change looks up its table's unfiltered bindings and, for each published column, the bindings filtering on the
/// value it has there — for its own event and for `*` — so its cost is the channels that can receive it, never all
/// channels held (an attacker's thousands of bindings on values that never change cost a change nothing).
struct SubscriptionIndex<Key: Hashable>: Sendable where Key: Sendable {
    /// A binding's place: its table, its event, and its filter's column and value (`nil`: unfiltered).
    struct Entry: Hashable, Sendable {
        var table: String
        var event: PostgresChangeBinding.Event
        var column: String?
        var value: String?

        init(_ binding: PostgresChangeBinding) {
            (table, event, column, value) = (binding.table, binding.event, binding.filter?.column, binding.filter?.value)
        }

        init(table: String, event: PostgresChangeBinding.Event, column: String?, value: String?) {
            (self.table, self.event, self.column, self.value) = (table, event, column, value)
        }
    }

    private var entries: [Entry: Set<Key>] = [:]

    /// Places in the index, for the gauges and tests.
    var count: Int { entries.count }

    mutating func insert(_ key: Key, _ bindings: [PostgresChangeBinding]) {
        for binding in bindings { entries[Entry(binding), default: []].insert(key) }
    }

    mutating func remove(_ key: Key, _ bindings: [PostgresChangeBinding]) {
        for binding in bindings {
            let entry = Entry(binding)
            entries[entry]?.remove(key)
            if entries[entry]?.isEmpty == true { entries[entry] = nil }
        }
    }

    /// The keys with a binding that can match `change` (each still checks its bindings: ``PostgresChangeBinding/matches(_:)``).
    func candidates(_ change: TableChange) -> Set<Key> {
        var found = Set<Key>()
        let values = change.filtered ?? []
        for event in [PostgresChangeBinding.Event.all, PostgresChangeBinding.Event(change.kind)] {
            if let keys = entries[Entry(table: change.table, event: event, column: nil, value: nil)] { found.formUnion(keys) }
            for value in values {
                guard let text = value.value else { continue }
                if let keys = entries[Entry(table: change.table, event: event, column: value.name, value: text)] { found.formUnion(keys) }
            }
        }
        return found
    }
}
