import Feature
import HTTPServer
import ReplayMatching
import Scheduling
import Settings
import ShipsFormat

/// Ship deployments on Lake Zurich as one feature: the ZSG scrape (daily), `/api/ships` and its refresh.
public struct ShipsFeature: Feature {
    public static let source = "ships"
    public var name: String { Self.source }

    /// The feature's settings, each default written here once.
    public struct Settings: Sendable {
        /// `PIER_ZSG_URL`: ZSG's ship page (`?timestamp=<ms>` is appended).
        public var zsgURL = ZSGClient.defaultURL
        /// `PIER_SHIPS_FETCH_AT`: the daily scrape, Zurich wall clock `HH:MM`.
        public var fetchAt = (hour: 3, minute: 0)
        /// `PIER_ZSG_PAUSE_S`: between the week's day pages.
        public var pause = ZSGClient.defaultPause
        /// `PIER_REFRESH_TOKEN` (or `_FILE`): the bearer token of `POST …/refresh`; none switches it off.
        public var refreshToken: String?

        public init() {}

        public init(_ reader: SettingsReader) throws {
            zsgURL = try reader.url("PIER_ZSG_URL", default: zsgURL, meaning: "ZSG day fragments; `?timestamp=<epoch ms of the date, 12:00 UTC>` is appended")
            if let text = reader.string("PIER_SHIPS_FETCH_AT", shown: String(format: "%02d:%02d", fetchAt.hour, fetchAt.minute), meaning: "ships are fetched daily at this Europe/Zurich time (and at once when today's run was missed)") {
                let parts = text.split(separator: ":").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard parts.count == 2, let hour = parts[0], let minute = parts[1], (0..<24).contains(hour), (0..<60).contains(minute) else {
                    throw SettingsProblem.invalid(variable: "PIER_SHIPS_FETCH_AT", value: text, expected: "HH:MM (Europe/Zurich)")
                }
                fetchAt = (hour, minute)
            }
            pause = try reader.seconds("PIER_ZSG_PAUSE_S", default: pause, allowZero: true, meaning: "pause between two ZSG day requests (one request at a time; `0` allowed)")
            refreshToken = try reader.secret("PIER_REFRESH_TOKEN", meaning: "bearer token for `POST /api/ships/refresh`; unset or empty → that route answers `403`; or `PIER_REFRESH_TOKEN_FILE`")
        }
    }

    public let service: ShipService
    public let job: FetchJob
    private let routes: ShipRoutes

    public init(settings: Settings, context: FeatureContext) {
        var configuration = ShipService.Configuration()
        let schedule = FetchSchedule.daily(hour: settings.fetchAt.hour, minute: settings.fetchAt.minute, timeZone: configuration.timeZone)
        configuration.staleAfter = schedule.staleAfter
        let service = ShipService(
            client: ZSGClient(baseURL: settings.zsgURL, client: context.upstream, pause: settings.pause),
            store: ShipStore(pool: context.pool), configuration: configuration)
        let job = FetchJob(source: Self.source, schedule: schedule, retry: context.retry, timeout: context.runTimeout) {
            try await service.refresh()
        }
        let runner = context.runner
        routes = ShipRoutes(
            service: service, token: BearerToken(secret: settings.refreshToken), maxAge: context.cacheMaxAge, metrics: context.metrics
        ) { await runner.run(job) }
        context.board.register(Self.source, staleAfter: schedule.staleAfter)
        self.service = service
        self.job = job
    }

    public var jobs: [FetchJob] { [job] }

    public func load() async throws { try await service.load() }


    public func register(in router: inout Router) { routes.register(in: &router) }

    public var replay: [any ReplayMatcher] { [ZSGReplay()] }

    /// The parser as `pier bench-parse` times it.
    public static let parsers = [ParseBenchmark("zsg", unit: "routes", folder: "Tests/Fixtures/zsg", suffix: ".html", iterations: 2000) { try ZSGPageParser.parse($0).count }]
}
