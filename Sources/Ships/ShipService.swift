import Fetching
import Foundation
import HTTPServer
import Logging
import Metrics

/// Ship deployments: scrapes ZSG into PostgreSQL, keeps the served days in memory and their encoded
/// answers in a ``ResponseCache``. Requests never wait on PostgreSQL or ZSG.
public final class ShipService: Sendable {
    public struct Configuration: Sendable {
        public var timeZone = TimeZone(identifier: "Europe/Zurich") ?? .current
        /// Today and the next six days.
        public var dayCount = 7
        /// How long clients may reuse an answer (`Cache-Control: max-age`).
        public var maxAge = 300
        /// Data older than this is flagged `stale` in `debug`.
        public var staleAfter: TimeInterval = 36 * 3600

        public init() {}
    }

    public let configuration: Configuration
    private let client: ZSGClient
    private let store: ShipStore
    private let days = SharedValue<[ShipDay]>([])
    private let index = SharedValue(CourseIndex())
    public let cache: ResponseCache
    private let logger: Logger

    public init(client: ZSGClient, store: ShipStore, configuration: Configuration = Configuration(), metrics: MetricsRegistry? = nil, logger: Logger = Logger(label: "pier.ships")) {
        self.client = client
        self.store = store
        self.configuration = configuration
        self.logger = logger
        let days = days
        cache = ResponseCache(name: "ships", metrics: metrics) { key, now in
            Self.entry(for: key, days: days.value, now: now, configuration: configuration)
        }
    }

    /// Today's Zurich date at `now`.
    public func today(_ now: Date = Date()) -> CalendarDate {
        CalendarDate(now, in: configuration.timeZone)
    }

    /// Fills memory from PostgreSQL (at start-up, and when another process stored new data).
    public func load() async throws {
        let stored = try await store.days(from: today().adding(days: -1))
        days.update { $0 = stored }
        cache.invalidate()
        reindex()
    }

    /// Which ship sails which course on each day held (for joins; rebuilt whenever the data changes).
    public var courses: CourseIndex { index.value }

    private func reindex() {
        let held = days.value
        index.update { $0 = CourseIndex(days: held, generation: $0.generation + 1) }
    }

    /// Scrapes the week, checks it, stores it atomically and serves it. Nothing is replaced when any day
    /// fails or the week looks wrong.
    public func refresh() async throws -> FetchSummary {
        let now = Date()
        let today = today(now)
        let dates = (0..<configuration.dayCount).map { today.adding(days: $0) }
        let pages = try await client.pages(for: dates)
        var checked: [ShipDriftCheck.Day] = []
        for page in pages {
            let day: ZSGPageParser.Day
            do { day = try ZSGPageParser.read(page.body) } catch { throw FetchError.unreadable(error, url: page.url) }
            checked.append(ShipDriftCheck.Day(date: page.date, bodyBytes: page.body, shipCount: day.shipCount, routes: day.routes))
        }
        let previous = try await store.routeCounts(from: today)
        if let problem = ShipDriftCheck.problem(with: checked, previous: previous) {
            throw FetchError.suspect(problem)
        }
        try Task.checkCancellation()
        let scraped = checked.map { ShipDay(date: $0.date, routes: $0.routes, scrapedAt: now) }
        try await store.replace(scraped, today: today)
        days.update { stored in
            let replaced = Set(scraped.map(\.date))
            stored = (stored.filter { !replaced.contains($0.date) && $0.date >= today.adding(days: -1) } + scraped)
                .sorted { $0.date < $1.date }
        }
        cache.invalidate()
        reindex()
        return FetchSummary(itemCount: scraped.reduce(0) { $0 + $1.routes.count }, scrapedAt: now)
    }

    /// The answer for a cache key: `""` for the week, `date=YYYY-MM-DD` for one day.
    static func entry(for key: String, days stored: [ShipDay], now: Date, configuration: Configuration) -> ResponseCache.Entry {
        let today = CalendarDate(now, in: configuration.timeZone)
        let midnight = today.adding(days: 1).start(in: configuration.timeZone)
        var days = stored.filter { $0.date >= today }
        guard !days.isEmpty else {
            return ResponseCache.Entry(
                response: CachedResponse(
                    .error(.serviceUnavailable, "no ship data yet", headers: ["Retry-After": "60", "Cache-Control": "no-store"])),
                validUntil: midnight)
        }
        if key.hasPrefix("date="), let date = CalendarDate(String(key.dropFirst(5))) {
            days = days.filter { $0.date == date }
            guard !days.isEmpty else {
                return ResponseCache.Entry(
                    response: CachedResponse(
                        .error(.notFound, "no ship data for \(date)", headers: ["Cache-Control": "no-store"])),
                    validUntil: midnight)
            }
        }
        guard let response = ShipsResponse(days: days, now: now, staleAfter: configuration.staleAfter),
            let body = try? JSONBody.encode(response)
        else {
            return ResponseCache.Entry(response: CachedResponse(.error(.internalServerError, "ship data could not be encoded")), validUntil: now)
        }
        var validUntil = midnight
        if !response.debug.stale, let oldest = days.map(\.scrapedAt).min() {
            validUntil = min(validUntil, oldest.addingTimeInterval(configuration.staleAfter))
        }
        return ResponseCache.Entry(
            response: CachedResponse(
                json: body,
                headers: ["Cache-Control": "public, max-age=\(configuration.maxAge)"]),
            validUntil: validUntil)
    }
}
