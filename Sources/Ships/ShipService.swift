import Foundation
import Logging
import Parsing
import Scheduling
import ShipsFormat

/// Ship deployments: scrapes ZSG into PostgreSQL and keeps the served days in memory (``days``); announces
/// every change (``changes``) so that the route layer rebuilds its answers. Speaks no HTTP.
public final class ShipService: Sendable {
    public struct Configuration: Sendable {
        public var timeZone = TimeZone(identifier: "Europe/Zurich") ?? .current
        /// Today and the next six days.
        public var dayCount = 7
        /// Data older than this is flagged `stale` in `debug`.
        public var staleAfter: Duration = .seconds(36 * 3600)

        public init() {}
    }

    public let configuration: Configuration
    private let client: ZSGClient
    private let store: ShipStore
    private let held = HeldData<[ShipDay]>([])
    private let index = SharedValue(CourseIndex())
    private let logger: Logger

    public init(client: ZSGClient, store: ShipStore, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "pier.ships")) {
        self.client = client
        self.store = store
        self.configuration = configuration
        self.logger = logger
        // The course index is rebuilt first, before anyone told of the change asks for it.
        held.changes.observe { [held, index] in
            let days = held.value
            index.update { $0 = CourseIndex(days: days, generation: $0.generation + 1) }
        }
    }

    /// Fired after the days held changed.
    public var changes: ChangeSignal { held.changes }

    /// The days held (from yesterday on: a request decides what "today" is).
    public var days: [ShipDay] { held.value }

    /// Today's Zurich date at `now`.
    public func today(_ now: Date = Date()) -> CalendarDate {
        CalendarDate(now, in: configuration.timeZone)
    }

    /// Fills memory from PostgreSQL (at start-up, and when another process stored new data).
    public func load() async throws {
        let stored = try await store.days(from: today().adding(days: -1))
        held.change { $0 = stored }
    }

    /// Which ship sails which course on each day held (for joins; rebuilt whenever the data changes).
    public var courses: CourseIndex { index.value }

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
            do { day = try ZSGPageParser.read(page.body) } catch { throw FetchError.unreadable("\(error)", url: page.url) }
            checked.append(ShipDriftCheck.Day(date: page.date, bodyBytes: page.body, shipCount: day.shipCount, routes: day.routes))
        }
        let previous = try await store.routeCounts(from: today)
        if let problem = ShipDriftCheck.problem(with: checked, previous: previous) {
            throw FetchError.suspect(problem)
        }
        try Task.checkCancellation()
        let scraped = checked.map { ShipDay(date: $0.date, routes: $0.routes, scrapedAt: now) }
        try await store.replace(scraped, today: today)
        held.change { stored in
            let replaced = Set(scraped.map(\.date))
            stored = (stored.filter { !replaced.contains($0.date) && $0.date >= today.adding(days: -1) } + scraped)
                .sorted { $0.date < $1.date }
        }
        return FetchSummary(itemCount: scraped.reduce(0) { $0 + $1.routes.count }, scrapedAt: now)
    }
}
