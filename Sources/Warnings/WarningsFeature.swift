import CAPFormat
import Feature
import Foundation
import HTTPServer
import ReplayMatching
import Scheduling
import Settings

/// FMI's official weather warnings (CAP) as one feature: the feed read every five minutes into PostgreSQL with
/// each warning's area as PostGIS geometry, and `/v1/warnings` (at a point, or at a place the weather feature names:
/// ``WarningPlaces``); the weather feature also puts them in `/v1/weather`. Made in two steps, since the weather
/// needs the warnings and their route needs the weather's places: the service (``service(settings:context:)``), then
/// the feature on it with the places.
public struct WarningsFeature: Feature {
    public static let source = WarningsService.source
    /// Announced when a reading published a new set (the pushes look again).
    public static let topic = ChangeTopic(source)
    public var name: String { Self.source }

    public struct Settings: Sendable {
        /// `PIER_FMI_WARNINGS_URL`: the RSS feed whose items link the CAP documents.
        public var feedURL = WarningsClient.defaultFeedURL
        /// `PIER_WARNINGS_INTERVAL_S`: how often the feed is read (FMI documents no limit; integrations use 5 minutes).
        public var interval: Duration = .seconds(300)
        /// `PIER_WARNINGS_CACHE_MB`: the lists of points looked up, kept in memory (random points evict the least used).
        public var cacheBytes = WarningsService.defaultCacheBytes

        public init() {}

        public init(_ reader: SettingsReader) throws {
            feedURL = try reader.url("PIER_FMI_WARNINGS_URL", default: feedURL, meaning: "FMI's RSS warnings feed; its items link the CAP documents, fetched only from the feed's own scheme and host (a link elsewhere is logged and not followed)")
            interval = try reader.seconds("PIER_WARNINGS_INTERVAL_S", default: interval, meaning: "the warnings feed is read this often (conditionally; each CAP document once). Past 1.5 intervals without a reading, warnings are served `X-Pier-Stale: warnings`")
            cacheBytes = try reader.megabytes("PIER_WARNINGS_CACHE_MB", default: cacheBytes, meaning: "warnings lists of points looked up in PostGIS before the set in force is first held in memory (at start, until the first reload); afterwards every point is answered from the set in memory")
        }
    }

    public let service: WarningsService
    public let job: FetchJob
    private let places: (any WarningPlaces)?
    private let maxAge: Int

    /// The warnings held and looked up, for the features that read them before this one is made (the weather); its
    /// source is registered on the board here.
    public static func service(settings: Settings, context: FeatureContext) -> WarningsService {
        let staleAfter = FetchSchedule.every(settings.interval).staleAfter
        context.board.register(Self.source, staleAfter: staleAfter)
        return WarningsService(
            client: WarningsClient(feedURL: settings.feedURL, client: context.upstream), store: WarningStore(pool: context.pool),
            board: context.board, staleAfter: staleAfter, cacheBytes: settings.cacheBytes, metrics: context.metrics)
    }

    /// - Parameters:
    ///   - service: made by ``service(settings:context:)`` with the same settings.
    ///   - places: where `/v1/warnings`' `lat`/`lon` and `place=` lie (the weather's); `nil`: `lat`/`lon` only.
    public init(settings: Settings, context: FeatureContext, service: WarningsService, places: (any WarningPlaces)?) {
        let schedule = FetchSchedule.every(settings.interval)
        job = FetchJob(source: Self.source, schedule: schedule, retry: RetryPolicy(initial: .seconds(60), maximum: settings.interval), timeout: context.runTimeout) {
            try await service.refresh()
        }
        self.service = service
        self.places = places
        maxAge = context.cacheMaxAge
    }

    public var jobs: [FetchJob] { [job] }

    public func load() async throws { try await service.reload() }

    public func register(in router: inout Router) {
        WarningRoutes(warnings: service, places: places, maxAge: maxAge).register(in: &router)
    }

    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        guard source == Self.source else { return nil }
        return service.health()
    }

    public var replay: [any ReplayMatcher] { [WarningsReplay()] }

    /// The CAP parser and what Pier stores of a document, as `pier bench-parse` times them.
    public static let parsers = [ParseBenchmark(
        "cap", unit: "languages", folder: "Tests/Fixtures/fmi-warnings/cap/2026/11-23/09-55-00Z", suffix: ".xml", iterations: 500
    ) { StoredWarning(url: "", alert: try CAPParser.parse($0)).entries.count }]
}
