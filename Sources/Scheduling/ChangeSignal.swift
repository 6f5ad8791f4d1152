import Synchronization

/// Tells observers that a service's data changed (a fetch stored new data, or it was reloaded), so that what
/// they derived from it — a route's ready-encoded answers — is dropped. Keeps the service free of HTTP: it
/// announces, the route layer decides what to rebuild.
public final class ChangeSignal: Sendable {
    private let observers = Mutex<[@Sendable () -> Void]>([])

    public init() {}

    public func observe(_ observer: @escaping @Sendable () -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Calls every observer, outside the lock.
    public func fire() {
        for observer in observers.withLock({ $0 }) { observer() }
    }
}
