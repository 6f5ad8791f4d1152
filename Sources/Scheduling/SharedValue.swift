import Synchronization

/// A value behind a lock that several owners share by reference (a service and the cache that reads it).
public final class SharedValue<Value: Sendable>: Sendable {
    @usableFromInline let storage: Mutex<Value>

    public init(_ value: Value) {
        storage = Mutex(value)
    }

    /// Inlinable: read on request paths (weather's answers), where a generic call asked the runtime for the lock's type.
    @inlinable
    public var value: Value {
        storage.withLock { $0 }
    }

    public func update<Result>(_ body: (inout Value) -> Result) -> Result {
        storage.withLock { body(&$0) }
    }
}
