import Foundation
import LakesFormat
import Logging
import MeteoNewsFormat
import Parsing
import Scheduling

/// Lake water temperatures: scrapes MeteoNews into PostgreSQL and keeps the served table in memory
/// (``snapshot``); announces every change (``changes``) so that the route layer rebuilds its answer. Speaks no
/// HTTP.
public final class LakeService: Sendable {
    public struct Configuration: Sendable {
        public var timeZone = TimeZone(identifier: "Europe/Zurich") ?? .current
        /// Data older than this is flagged `stale` in `debug`.
        public var staleAfter: Duration = .seconds(9 * 3600)
        /// Days of level history kept in PostgreSQL (`PIER_LAKE_LEVELS_RETENTION_D`).
        public var retentionDays = 730

        public init() {}
    }

    public let configuration: Configuration
    private let client: MeteoNewsClient
    private let store: LakeStore
    private let held = HeldData<LakeSnapshot?>(nil)
    private let levels = SharedValue(LakeHistory())
    /// Days of history held in memory: what `/v1/water-levels` may ask for.
    public static let historyDays = 366

    /// Fired after the table held changed.
    public var changes: ChangeSignal { held.changes }
    private let logger: Logger

    public init(
        client: MeteoNewsClient, store: LakeStore, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "pier.lakes")
    ) {
        self.client = client
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }

    /// The table served, `nil` before the first scrape.
    public var snapshot: LakeSnapshot? { held.value }

    /// Each lake's levels of the last ``historyDays`` days (from PostgreSQL: every replica's scrapes and imports).
    public var history: LakeHistory { levels.value }

    /// Fills memory from PostgreSQL (at start-up, and when another process stored new data).
    public func load() async throws {
        let stored = try await store.snapshot()
        let history = try await store.history(from: today().adding(days: -Self.historyDays))
        levels.update { $0 = history }
        held.change { $0 = stored }
    }

    /// Today in Zurich.
    public func today(_ now: Date = Date()) -> CalendarDate {
        CalendarDate(now, in: configuration.timeZone)
    }

    /// Scrapes the table, checks it, stores it atomically and serves it. Nothing is replaced when the
    /// page fails or looks wrong.
    public func refresh() async throws -> FetchSummary {
        let now = Date()
        let page = try await client.page()
        var readings: [LakeReading]
        do { readings = try MeteoNewsPageParser.parse(page.body) } catch { throw FetchError.unreadable("\(error)", url: page.url) }
        readings = deduplicated(readings)
        let previous = try await store.snapshot()?.readings.count ?? 0
        if let problem = LakeDriftCheck.problem(with: readings, previousCount: previous) {
            throw FetchError.suspect(problem)
        }
        try Task.checkCancellation()
        let fresh = LakeSnapshot(readings: readings, scrapedAt: now)
        try await store.replace(with: fresh, day: today(now), retentionDays: configuration.retentionDays)
        // The history as stored (other replicas' scrapes and imports included); the table is served regardless.
        if let history = try? await store.history(from: today(now).adding(days: -Self.historyDays)) { levels.update { $0 = history } }
        held.change { $0 = fresh }
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
}
