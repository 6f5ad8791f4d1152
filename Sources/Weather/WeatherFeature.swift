import Feature
import Fetching
import HTTPServer
import Replay
import Warnings

/// Finnish weather as one feature: FMI observations every 10 minutes, forecasts per grid cell on demand
/// within a request budget, `/v1/weather`, and `/v1/warnings` (the warnings feature's set, at a point or place).
public struct WeatherFeature: Feature {
    public static let source = "weather"
    public var name: String { Self.source }

    /// The feature's settings, each default written here once.
    public struct Settings: Sendable {
        /// `PIER_FMI_URL`: FMI's WFS endpoint.
        public var fmiURL = FMIClient.defaultURL
        /// `PIER_FMI_FORECAST_QUERY`: the stored query for point forecasts.
        public var forecastQuery = FMIClient.defaultForecastQuery
        /// `PIER_WEATHER_INTERVAL_S`: observations.
        public var interval: Duration = .seconds(600)
        /// `PIER_FORECAST_TTL_S`, `PIER_FORECAST_NEIGHBOUR_KM`, `PIER_FMI_REQUESTS_PER_MINUTE`, `PIER_FMI_BURST`,
        /// `PIER_FMI_CLIENT_SHARE`: the forecast service's own settings, its defaults the defaults.
        public var forecasts = ForecastService.Settings()
        /// `PIER_WEATHER_CACHE_MB`: forecasts and answers kept in memory.
        public var cacheBytes = WeatherMemory.defaultBudgetBytes

        public init() {}

        public init(_ reader: SettingsReader) throws {
            fmiURL = try reader.url("PIER_FMI_URL", default: fmiURL)
            if let query = reader.string("PIER_FMI_FORECAST_QUERY"), !query.isEmpty { forecastQuery = query }
            interval = try reader.seconds("PIER_WEATHER_INTERVAL_S", default: interval)
            forecasts.ttl = try reader.seconds("PIER_FORECAST_TTL_S", default: forecasts.ttl)
            forecasts.budget = try reader.budget("PIER_FMI", default: forecasts.budget)
            forecasts.neighbourKilometres = try reader.number("PIER_FORECAST_NEIGHBOUR_KM", default: forecasts.neighbourKilometres, in: 0...500)
            cacheBytes = try reader.megabytes("PIER_WEATHER_CACHE_MB", default: cacheBytes)
        }
    }

    public let observations: ObservationService
    public let forecasts: ForecastService
    public let job: FetchJob
    private let routes: WeatherRoutes
    private let warningRoutes: WarningRoutes

    /// - Parameter warnings: FMI's warnings (the warnings feature's service), served at points and places here.
    public init(settings: Settings, context: FeatureContext, warnings: WarningsService) {
        let fmi = FMIClient(baseURL: settings.fmiURL, forecastQuery: settings.forecastQuery, client: context.upstream)
        let store = WeatherStore(pool: context.pool)
        let observations = ObservationService(client: fmi, store: store)
        var forecastSettings = settings.forecasts
        if context.upstreamsAreRecordings { forecastSettings.budget = .unlimited }
        forecasts = ForecastService(
            client: fmi, store: store,
            settings: forecastSettings,
            memory: WeatherMemory(budgetBytes: settings.cacheBytes), metrics: context.metrics)
        let schedule = FetchSchedule.every(settings.interval)
        // Observations age by the minute: retry soon, and never wait longer than the schedule.
        job = FetchJob(
            source: Self.source, schedule: schedule, retry: RetryPolicy(initial: .seconds(60), maximum: settings.interval),
            timeout: context.runTimeout
        ) {
            try await observations.refresh()
        }
        let places = PlaceResolver(client: fmi, pool: context.pool, forecasts: forecasts)
        routes = WeatherRoutes(
            observations: observations, forecasts: forecasts, places: places, warnings: warnings, maxAge: context.cacheMaxAge,
            metrics: context.metrics)
        warningRoutes = WarningRoutes(warnings: warnings, places: places, maxAge: context.cacheMaxAge)
        context.board.register(Self.source, staleAfter: schedule.staleAfter)
        self.observations = observations
    }

    public var jobs: [FetchJob] { [job] }

    public func load() async throws { try await observations.load() }


    public func register(in router: inout Router) {
        routes.register(in: &router)
        warningRoutes.register(in: &router)
    }

    public func healthDetails(for source: String) -> String? {
        source == Self.source ? forecasts.healthJSON() : nil
    }

    public var replay: [any ReplayMatcher] { [FMIReplay()] }

    /// The parser as `pier bench-parse` times it.
    public static let parser = ParseBenchmark("fmi", unit: "series", folder: "Tests/Fixtures/fmi", suffix: ".xml", iterations: 50) { try FMIDocumentParser.parse($0).count }
}
