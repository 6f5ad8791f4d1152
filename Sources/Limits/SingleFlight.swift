import Synchronization

/// At most one piece of work per key at a time: a caller for a key whose work is running waits for that
/// work's value instead of starting it again (a scrape per source, a query or an FMI call per grid cell).
public final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let running = Mutex<[Key: Task<Value, Never>]>([:])

    public init() {}

    /// The value of the work running for `key`, or of `work` started now.
    public func value(for key: Key, _ work: @escaping @Sendable () async -> Value) async -> Value {
        let task = running.withLock { running in running[key] ?? start(key, work, in: &running) }
        return await task.value
    }

    /// Whether work for `key` is running now (a caller would join it rather than start any).
    public func isRunning(_ key: Key) -> Bool {
        running.withLock { $0[key] != nil }
    }

    /// Called with the lock held: the task is in the table before it can finish and remove itself.
    private func start(_ key: Key, _ work: @escaping @Sendable () async -> Value, in running: inout [Key: Task<Value, Never>]) -> Task<Value, Never> {
        let task = Task {
            defer { _ = self.running.withLock { $0.removeValue(forKey: key) } }
            return await work()
        }
        running[key] = task
        return task
    }
}
