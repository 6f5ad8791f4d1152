import Fetching
import Foundation
import HTTPServer
import Logging
import Metrics

/// Lake water temperatures: scrapes MeteoNews into PostgreSQL, keeps the served table in memory and its
/// encoded answer in a ``ResponseCache``. Requests never wait on PostgreSQL or MeteoNews.
public final class LakeService: Sendable {
    public struct Configuration: Sendable {
        public var timeZone = TimeZone(identifier: "Europe/Zurich") ?? .current
        /// How long clients may reuse an answer (`Cache-Control: max-age`).
        public var maxAge = 300
        /// Data older than this is flagged `stale` in `debug`.
        public var staleAfter: TimeInterval = 9 * 3600

        public init() {}
    }

    public let configuration: Configuration
    private let client: MeteoNewsClient
    private let store: LakeStore
    private let snapshot = SharedValue<LakeSnapshot?>(nil)
    public let cache: ResponseCache
    private let logger: Logger

    public init(
        client: MeteoNewsClient, store: LakeStore, configuration: Configuration = Configuration(),
        metrics: MetricsRegistry? = nil, logger: Logger = Logger(label: "pier.lakes")
    ) {
        self.client = client
        self.store = store
        self.configuration = configuration
        self.logger = logger
        let snapshot = snapshot
        cache = ResponseCache(name: "lakes", metrics: metrics) { _, now in
            Self.entry(snapshot.value, now: now, configuration: configuration)
        }
    }

    /// Fills memory from PostgreSQL (at start-up, and when another process stored new data).
    public func load() async throws {
        let stored = try await store.snapshot()
        snapshot.update { $0 = stored }
        cache.invalidate()
    }

    /// Scrapes the table, checks it, stores it atomically and serves it. Nothing is replaced when the
    /// page fails or looks wrong.
    public func refresh() async throws -> FetchSummary {
        let now = Date()
        let page = try await client.page()
        var readings: [LakeReading]
        do { readings = try MeteoNewsPageParser.parse(page.body) } catch { throw FetchError.unreadable(error, url: page.url) }
        readings = deduplicated(readings)
        let previous = try await store.snapshot()?.readings.count ?? 0
        if let problem = LakeDriftCheck.problem(with: readings, previousCount: previous) {
            throw FetchError.suspect(problem)
        }
        try Task.checkCancellation()
        let fresh = LakeSnapshot(readings: readings, scrapedAt: now)
        try await store.replace(with: fresh)
        snapshot.update { $0 = fresh }
        cache.invalidate()
        return FetchSummary(itemCount: readings.count, scrapedAt: now)
    }

    /// A lake listed twice keeps its first row (the name is the table's key).
    private func deduplicated(_ readings: [LakeReading]) -> [LakeReading] {
        var seen = Set<String>()
        let unique = readings.filter { seen.insert($0.name).inserted }
        if unique.count < readings.count {
            logger.warning("lake table lists a lake twice; the first row is kept", metadata: ["rows": "\(readings.count)", "lakes": "\(unique.count)"])
        }
        return unique
    }

    static func entry(_ snapshot: LakeSnapshot?, now: Date, configuration: Configuration) -> ResponseCache.Entry {
        guard let snapshot else {
            return ResponseCache.Entry(
                response: CachedResponse(
                    .error(.serviceUnavailable, "no lake data yet", headers: ["Retry-After": "60", "Cache-Control": "no-store"])),
                validUntil: .distantFuture)
        }
        let response = LakesResponse(snapshot: snapshot, now: now, timeZone: configuration.timeZone, staleAfter: configuration.staleAfter)
        guard let body = try? JSONBody.encode(response) else {
            return ResponseCache.Entry(response: CachedResponse(.error(.internalServerError, "lake data could not be encoded")), validUntil: now)
        }
        let staleAt = snapshot.scrapedAt.addingTimeInterval(configuration.staleAfter)
        return ResponseCache.Entry(
            response: CachedResponse(json: body, headers: ["Cache-Control": "public, max-age=\(configuration.maxAge)"]),
            validUntil: response.debug.stale ? .distantFuture : staleAt)
    }
}
