import Synchronization

/// A monotonically increasing count, safe to bump from any thread without a lock.
public final class Counter: Sendable {
    private let storage = Atomic<UInt64>(0)

    public init() {}

    public func increment(by amount: UInt64 = 1) {
        storage.wrappingAdd(amount, ordering: .relaxed)
    }

    public var value: UInt64 { storage.load(ordering: .relaxed) }
}
