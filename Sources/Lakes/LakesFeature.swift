import Feature
import Fetching
import HTTPServer

/// Swiss lakes' water temperature as one feature: the MeteoNews table (every 6 hours) and `/api/water-temp`.
public struct LakesFeature: Feature {
    public static let source = "lakes"
    public var name: String { Self.source }

    /// The feature's settings, each default written here once.
    public struct Settings: Sendable {
        /// `PIER_METEONEWS_URL`: the lake table page.
        public var meteoNewsURL = MeteoNewsClient.defaultURL
        /// `PIER_LAKES_INTERVAL_S`.
        public var interval: Duration = .seconds(6 * 3600)

        public init() {}

        public init(_ reader: SettingsReader) throws {
            meteoNewsURL = try reader.url("PIER_METEONEWS_URL", default: meteoNewsURL)
            interval = try reader.seconds("PIER_LAKES_INTERVAL_S", default: interval)
        }
    }

    public let service: LakeService
    public let job: FetchJob
    private let routes: LakeRoutes

    public init(settings: Settings, context: FeatureContext) {
        var configuration = LakeService.Configuration()
        let schedule = FetchSchedule.every(settings.interval)
        configuration.staleAfter = schedule.staleAfter
        let service = LakeService(
            client: MeteoNewsClient(url: settings.meteoNewsURL, client: context.upstream), store: LakeStore(pool: context.pool),
            configuration: configuration)
        job = FetchJob(source: Self.source, schedule: schedule, retry: context.retry, timeout: context.runTimeout) {
            try await service.refresh()
        }
        routes = LakeRoutes(service: service, maxAge: context.cacheMaxAge, metrics: context.metrics)
        context.board.register(Self.source, staleAfter: schedule.staleAfter)
        self.service = service
    }

    public var jobs: [FetchJob] { [job] }

    public func load() async throws { try await service.load() }


    public func register(in router: inout Router) { routes.register(in: &router) }

    /// The parser as `pier bench-parse` times it.
    public static let parser = ParseBenchmark("meteonews", unit: "lakes", folder: "Tests/Fixtures/meteonews", suffix: ".html", iterations: 2000) { try MeteoNewsPageParser.parse($0).count }
}
