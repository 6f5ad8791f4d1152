import Synchronization

/// A value behind a lock that several owners share by reference (a service and the cache that reads it).
public final class SharedValue<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    public init(_ value: Value) {
        storage = Mutex(value)
    }

    public var value: Value {
        storage.withLock { $0 }
    }

    public func update<Result>(_ body: (inout Value) -> Result) -> Result {
        storage.withLock { body(&$0) }
    }
}
