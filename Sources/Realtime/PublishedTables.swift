import Synchronization

/// The tables a feature publishes, by name: handed over when the feature has read their declaration from the database
/// (at load, before the server listens), read by every join and every change.
final class PublishedTables: Sendable {
    private let tables = Mutex<[String: RealtimeTable]>([:])

    init(_ tables: [RealtimeTable]) {
        for table in tables { publish(table) }
    }

    /// Publishes `table`, replacing one of its name.
    func publish(_ table: RealtimeTable) {
        tables.withLock { $0[table.name] = table }
    }

    subscript(name: String) -> RealtimeTable? { tables.withLock { $0[name] } }

    var all: [RealtimeTable] { tables.withLock { Array($0.values) } }
}
