import Foundation
import Metrics

/// Ready-encoded answers keyed by variant (`""` for the plain route, `date=…` for a filtered one), built on
/// first use and kept until the data changes (``invalidate()``) or the entry's own deadline passes (a day
/// boundary, the moment data turns stale). Requests answered from here never touch the database.
public final class ResponseCache: Sendable {
    /// A built answer and until when it stays right.
    public struct Entry: Sendable {
        public var response: CachedResponse
        public var validUntil: Date

        public init(response: CachedResponse, validUntil: Date) {
            self.response = response
            self.validUntil = validUntil
        }
    }

    /// Variants kept at most; a client cannot grow the cache without bound by inventing keys.
    public static let maximumEntries = 64

    private let build: @Sendable (_ key: String, _ now: Date) -> Entry
    private let entries = BoundedCache<String, Entry>(capacity: maximumEntries)
    private let hits: Counter?
    private let misses: Counter?

    public init(name: String, metrics: MetricsRegistry? = nil, build: @escaping @Sendable (_ key: String, _ now: Date) -> Entry) {
        self.build = build
        hits = metrics?.counter("pier_cache_requests_total", help: "Cached responses: hits and rebuilds.", labels: [("cache", name), ("result", "hit")])
        misses = metrics?.counter("pier_cache_requests_total", help: "Cached responses: hits and rebuilds.", labels: [("cache", name), ("result", "miss")])
    }

    /// The answer for `key` at `now`, rebuilt when missing or expired.
    public func response(for key: String = "", now: Date = Date()) -> CachedResponse {
        if let entry = entries[key], now < entry.validUntil {
            hits?.increment()
            return entry.response
        }
        misses?.increment()
        let entry = build(key, now)
        entries.set(entry, for: key)
        return entry.response
    }

    /// Drops every entry; the next request builds from the new data.
    public func invalidate() {
        entries.removeAll()
    }
}
