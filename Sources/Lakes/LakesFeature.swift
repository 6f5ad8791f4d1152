import ArgumentParser
import Feature
import HTTPServer
import LakesFormat
import MeteoNewsFormat
import Scheduling
import Settings

/// Swiss lakes' water temperature and level as one feature: the MeteoNews table (every 6 hours), `/api/water-temp`,
/// and each lake's level history (`/v1/water-levels`).
public struct LakesFeature: Feature {
    public static let source = "lakes"
    public var name: String { Self.source }

    /// The feature's settings, each default written here once.
    public struct Settings: Sendable {
        /// `PIER_METEONEWS_URL`: the lake table page.
        public var meteoNewsURL = MeteoNewsClient.defaultURL
        /// `PIER_LAKES_INTERVAL_S`.
        public var interval: Duration = .seconds(6 * 3600)
        /// `PIER_LAKE_LEVELS_RETENTION_D`: days of level history kept (two years).
        public var retentionDays = LakeService.Configuration().retentionDays

        public init() {}

        public init(_ reader: SettingsReader) throws {
            meteoNewsURL = try reader.url("PIER_METEONEWS_URL", default: meteoNewsURL, meaning: "the lake table page")
            interval = try reader.seconds("PIER_LAKES_INTERVAL_S", default: interval, meaning: "lakes are fetched this long after the last success (6 h)")
            retentionDays = try reader.int("PIER_LAKE_LEVELS_RETENTION_D", default: retentionDays, in: LakeService.historyDays...36_500, meaning: "days of lake-level history kept in PostgreSQL (`lake_levels`, one row per lake and day; 366 … 36500); older rows are deleted when a scrape is stored")
        }
    }

    public let service: LakeService
    public let job: FetchJob
    private let store: LakeStore
    private let routes: LakeRoutes
    private let levels: WaterLevelRoutes

    public init(settings: Settings, context: FeatureContext) {
        var configuration = LakeService.Configuration()
        let schedule = FetchSchedule.every(settings.interval)
        configuration.staleAfter = schedule.staleAfter
        configuration.retentionDays = settings.retentionDays
        store = LakeStore(pool: context.pool)
        let service = LakeService(
            client: MeteoNewsClient(url: settings.meteoNewsURL, client: context.upstream), store: store, configuration: configuration)
        job = FetchJob(source: Self.source, schedule: schedule, retry: context.retry, timeout: context.runTimeout) {
            try await service.refresh()
        }
        routes = LakeRoutes(service: service, maxAge: context.cacheMaxAge, metrics: context.metrics)
        levels = WaterLevelRoutes(service: service, maxAge: context.cacheMaxAge)
        context.board.register(Self.source, staleAfter: schedule.staleAfter)
        self.service = service
    }

    public var jobs: [FetchJob] { [job] }

    public func load() async throws {
        try await service.load()
    }

    /// Forty days of levels around the demo's recorded table (the app's chart), written as if scraped.
    public func seedDemo(from directory: String) async throws {
        try await DemoLevels.seed(from: directory, into: store, today: service.today())
    }


    public func register(in router: inout Router) {
        routes.register(in: &router)
        levels.register(in: &router)
    }

    /// The level history kept: `"history":{"rows":…,"newest_day":"2026-11-25"}` (`null` before any).
    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        guard source == Self.source else { return nil }
        let history = service.history
        return History(history: .init(rows: history.storedRows, newestDay: history.newestDay.map { "\($0)" }))
    }

    /// The level history kept (`history`: its rows and newest day).
    struct History: Encodable, Sendable {
        struct Figures: Encodable, Sendable {
            let rows: Int
            let newestDay: String?

            enum CodingKeys: String, CodingKey {
                case rows, newestDay = "newest_day"
            }
        }

        let history: Figures
    }

    public static var imports: [any ParsableCommand.Type] { [ImportWaterLevelsCommand.self] }

    /// The parser as `pier bench-parse` times it.
    public static let parsers = [ParseBenchmark("meteonews", unit: "lakes", folder: "Tests/Fixtures/meteonews", suffix: ".html", iterations: 2000) { try MeteoNewsPageParser.parse($0).count }]
}
