import Synchronization

/// The stops (upstream requests) asked for lately and answered with departures, counted to spread the day's quota
/// over them. Noted on the slow path only — every watched stop reaches it at least once per freshness period, since
/// its answer must be refreshed — so the warm path takes no lock for it. Only stops TfNSW answered count (ids nobody
/// can check, refused or unknown, would stretch everyone's freshness for free), and the set is bounded.
final class WatchedStops: Sendable {
    /// More stops than this are not told apart (~1.6 MB); the oldest leaves first.
    static let limit = 20_000

    private let seen = Mutex<[String: Double]>([:])

    func note(_ key: String, at now: Double) {
        seen.withLock { seen in
            if seen[key] == nil, seen.count >= Self.limit, let oldest = seen.min(by: { $0.value < $1.value })?.key {
                seen.removeValue(forKey: oldest)
            }
            seen[key] = now
        }
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
