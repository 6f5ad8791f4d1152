
/// A service's data held in memory, announcing every change (``changes``) once the new value is in place, so that
/// what is derived from it — a route's ready-encoded answers, an index — is dropped or rebuilt. Keeps the service
/// free of HTTP: it announces, the route layer decides what to rebuild; and no change can forget to announce.
public final class HeldData<Value: Sendable>: Sendable {
    /// Fired after every change, in the order observers were added.
    public let changes = ChangeSignal()
    private let storage: SharedValue<Value>

    public init(_ value: Value) {
        storage = SharedValue(value)
    }

    public var value: Value { storage.value }

    /// Changes the value, then announces it (outside the lock).
    public func change(_ body: (inout Value) -> Void) {
        storage.update(body)
        changes.fire()
    }
}
