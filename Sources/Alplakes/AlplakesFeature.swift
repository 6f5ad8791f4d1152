import AlplakesFormat
import Feature
import HTTPServer
import ReplayMatching
import Scheduling
import Settings

/// Lake temperatures from Alplakes (Eawag) as one feature: every configured lake hourly, one at a time;
/// the drop-in routes under `/v1/alplakes/…` and `/v1/lake-temperatures`.
public struct AlplakesFeature: Feature {
    public static let source = "alplakes"
    public var name: String { Self.source }

    public struct Settings: Sendable {
        /// `PIER_ALPLAKES_URL`: the API base (`/simulations/1d/…` is appended).
        public var url = AlplakesClient.defaultURL
        /// `PIER_ALPLAKES_INTERVAL_S`.
        public var interval: Duration = .seconds(3600)
        /// `PIER_ALPLAKES_LAKES` (comma-separated keys), `PIER_ALPLAKES_PAUSE_S`.
        public var service = AlplakesService.Settings()

        public init() {}

        public init(_ reader: SettingsReader) throws {
            url = try reader.url("PIER_ALPLAKES_URL", default: url, meaning: "Alplakes' API (`/simulations/1d/profile/…` and `/simulations/1d/point/…` are appended)")
            interval = try reader.seconds("PIER_ALPLAKES_INTERVAL_S", default: interval, meaning: "every lake is fetched this long after the last successful run")
            service.pause = try reader.seconds("PIER_ALPLAKES_PAUSE_S", default: service.pause, allowZero: true, meaning: "pause between two lakes (one lake at a time: two requests each, ~54 per run); the run's time limit grows by this per lake")
            if let text = reader.string("PIER_ALPLAKES_LAKES", shown: service.lakes.joined(separator: ","), meaning: "comma-separated Alplakes lake keys to fetch (`upperzurich,geneva,…`); the drop-in routes answer `404` for any other") {
                let keys = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                guard !keys.isEmpty, keys.allSatisfy({ $0.count <= 40 && $0.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) } }) else {
                    throw SettingsProblem.invalid(variable: "PIER_ALPLAKES_LAKES", value: text, expected: "comma-separated lake keys such as upperzurich,geneva")
                }
                service.lakes = keys.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
            }
        }
    }

    public let service: AlplakesService
    public let job: FetchJob
    private let routes: AlplakesRoutes

    public init(settings: Settings, context: FeatureContext) {
        let service = AlplakesService(
            client: AlplakesClient(baseURL: settings.url, client: context.upstream), store: AlplakesStore(pool: context.pool),
            settings: settings.service)
        let schedule = FetchSchedule.every(settings.interval)
        // A run walks every lake with a pause between them: its time limit grows with the list.
        let timeout = context.runTimeout + settings.service.pause * settings.service.lakes.count
        job = FetchJob(source: Self.source, schedule: schedule, retry: context.retry, timeout: timeout) {
            try await service.refresh()
        }
        routes = AlplakesRoutes(service: service, maxAge: context.cacheMaxAge)
        context.board.register(Self.source, staleAfter: schedule.staleAfter)
        self.service = service
    }

    public var jobs: [FetchJob] { [job] }

    public func load() async throws { try await service.load() }

    public func register(in router: inout Router) { routes.register(in: &router) }

    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        source == Self.source ? service.health() : nil
    }

    public var replay: [any ReplayMatcher] { [AlplakesReplay()] }

    /// Eawag's point series, as `pier bench-parse` times it.
    public static var parsers: [ParseBenchmark] {
        [ParseBenchmark("alplakes", unit: "steps", folder: "Tests/Fixtures/alplakes", prefix: "point-", suffix: ".json", iterations: 200) {
            try AlplakesSeries(parsing: $0).steps.count
        }]
    }
}
