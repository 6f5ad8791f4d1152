import Foundation
import HTTPServer
import Metrics

/// Ready-encoded answers keyed by variant (`""` for the plain route, `date=…` for a filtered one), built on
/// first use and kept until the data changes (``invalidate()``) or the entry's own deadline passes (a day
/// boundary, the moment data turns stale), in an ``AnswerCache``. Requests answered from here never touch the
/// database.
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

    /// Variants kept at most, and what they may hold; a client cannot grow the cache without bound by inventing keys.
    public static let maximumEntries = 64
    public static let maximumBytes = 32 << 20

    private let build: @Sendable (_ key: String, _ now: Date) -> Entry
    private let entries = AnswerCache<String>(entries: maximumEntries, bytes: maximumBytes)
    private let hits: Counter?
    private let misses: Counter?

    public init(name: String, metrics: MetricsRegistry? = nil, build: @escaping @Sendable (_ key: String, _ now: Date) -> Entry) {
        self.build = build
        hits = metrics?.counter("pier_cache_requests_total", help: "Cached responses: hits and rebuilds.", labels: [("cache", name), ("result", "hit")])
        misses = metrics?.counter("pier_cache_requests_total", help: "Cached responses: hits and rebuilds.", labels: [("cache", name), ("result", "miss")])
    }

    /// The answer for `key` at `now`, rebuilt when missing or expired.
    public func response(for key: String = "", now: Date = Date()) -> CachedResponse {
        if let held = entries.answer(for: key, now: now) {
            hits?.increment()
            return held
        }
        misses?.increment()
        let entry = build(key, now)
        entries.keep(entry.response, for: key, until: entry.validUntil, keyBytes: key.utf8.count)
        return entry.response
    }

    /// Drops every entry; the next request builds from the new data.
    public func invalidate() {
        entries.removeAll()
    }
}
