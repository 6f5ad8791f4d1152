import Synchronization

/// The stops (upstream requests) asked for lately, counted to spread the day's quota over them. Noted on the
/// slow path only — every watched stop reaches it at least once per freshness period, since its answer must
/// be refreshed — so the warm path takes no lock for it.
final class WatchedStops: Sendable {
    private let seen = Mutex<[String: Double]>([:])

    func note(_ key: String, at now: Double) {
        seen.withLock { $0[key] = now }
    }

    /// A stop TfNSW does not know is nobody's to refresh.
    func forget(_ key: String) {
        _ = seen.withLock { $0.removeValue(forKey: key) }
    }

    /// Stops asked within the last `window` seconds (older ones are forgotten).
    func count(at now: Double, window: Double) -> Int {
        seen.withLock { seen in
            seen = seen.filter { now - $0.value <= window }
            return seen.count
        }
    }
}
