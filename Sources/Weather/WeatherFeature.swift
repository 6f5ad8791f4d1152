import FMIFormat
import Feature
import HTTPServer
import Logging
import METNorway
import METNorwayFormat
import ReplayMatching
import Scheduling
import Settings
import UpstreamHTTP
import Warnings

/// Finnish weather as one feature: FMI observations every 10 minutes, forecasts per grid cell on demand
/// within a request budget, `/v1/weather`; it offers its points and place names to `/v1/warnings` (the warnings
/// feature's route).
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
        /// `PIER_WEATHER_CACHE_MB`: forecasts and answers kept in memory, half each.
        public var cacheBytes = Self.defaultCacheBytes
        public static let defaultCacheBytes = 64 << 20
        /// `PIER_METNO_URL`, `PIER_METNO_REQUESTS_PER_MINUTE` / `_BURST` / `_CLIENT_SHARE` (`0` per minute: never ask
        /// MET Norway), `PIER_METNO_MAX_ROWS`: the forecast that stands in when FMI cannot answer.
        public var metNorway = METNorwayFallback.Settings()
        /// `PIER_CONTACT`: the operator's URL or e-mail address in the `User-Agent` MET Norway requires.
        public var contact: String?

        public init() {}

        public init(_ reader: SettingsReader) throws {
            fmiURL = try reader.url("PIER_FMI_URL", default: fmiURL, meaning: "FMI's WFS endpoint")
            if let query = reader.string("PIER_FMI_FORECAST_QUERY", shown: forecastQuery, meaning: "the point-forecast stored query (the Harmonie/MEPS point timevaluepair queries have the same shape)"), !query.isEmpty { forecastQuery = query }
            interval = try reader.seconds("PIER_WEATHER_INTERVAL_S", default: interval, meaning: "all-Finland observations are fetched this long after the last success")
            forecasts.ttl = try reader.seconds("PIER_FORECAST_TTL_S", default: forecasts.ttl, meaning: "a cell's forecast is fresh this long; after it, FMI is asked again (a stale one is served if FMI fails)")
            forecasts.budget = try reader.budget(
                "PIER_FMI", default: forecasts.budget, rate: "sustained FMI point-forecast requests per process (token bucket); `0` = never ask FMI for forecasts (observations are not counted)", of: "forecast requests for cold cells")
            forecasts.neighbourKilometres = try reader.number("PIER_FORECAST_NEIGHBOUR_KM", default: forecasts.neighbourKilometres, in: 0...500, meaning: "how far a neighbouring cell's forecast may stand in for the point's own (`0` = never)")
            cacheBytes = try reader.megabytes("PIER_WEATHER_CACHE_MB", default: cacheBytes, meaning: "bytes of forecasts (with their encodings; the least recently used leave first) and ready weather answers kept in memory, half each")
            forecasts.preferStaleFMI = try reader.seconds("PIER_FMI_STALE_PREFERRED_S", default: forecasts.preferStaleFMI, allowZero: true, meaning: "a stale FMI forecast younger than this (since its fetch) is served rather than MET Norway's; an older one gives way to MET Norway when FMI cannot answer")
            metNorway.url = try reader.url("PIER_METNO_URL", default: metNorway.url, meaning: "MET Norway's Locationforecast, asked only for cells FMI cannot answer")
            metNorway.budget = try reader.budget(
                "PIER_METNO", default: metNorway.budget, rate: "sustained MET Norway requests per process (MET allows 20 a second for an application as a whole); `0` = never ask MET Norway (FMI's stale forecasts of any age stand, else `503`)", of: "MET Norway requests")
            metNorway.maximumRows = try reader.int("PIER_METNO_MAX_ROWS", default: metNorway.maximumRows, in: 100...10_000_000, meaning: "MET Norway forecasts kept in PostgreSQL (the shared answer store, kind `metno`, ~4 kB each; rows also go a day after their `Expires`)")
            contact = reader.string("PIER_CONTACT", meaning: "a URL or e-mail address Pier puts in its `User-Agent` to upstreams that ask for one: `Pier/0.1.0 (<PIER_CONTACT>)` to Wikipedia, as Wikimedia's User-Agent policy requires (\"or they may be blocked without notice\"), and to MET Norway, whose terms require contact information (without it MET answers `403`, and Pier stops asking for an hour); unset: `Pier/0.1.0` only. Set it in production")
        }
    }

    public let observations: ObservationService
    public let forecasts: ForecastService
    public let job: FetchJob
    /// MET Norway will stand in, but without the contact its terms require (it answers `403`): said at start.
    private let metNorwayWithoutContact: Bool
    private let routes: WeatherRoutes
    /// Where a request's `lat`/`lon` or `place=` lies, for the warnings' route and a device's saved places.
    public let places: any WarningPlaces

    /// - Parameter warnings: FMI's warnings (the warnings feature's service), served at points and places here.
    public init(settings: Settings, context: FeatureContext, warnings: WarningsService) {
        let fmi = FMIClient(baseURL: settings.fmiURL, forecastQuery: settings.forecastQuery, client: context.upstream)
        let store = WeatherStore(pool: context.pool)
        let observations = ObservationService(client: fmi, store: store)
        var forecastSettings = settings.forecasts
        var metNorwayBudget = settings.metNorway.budget
        if context.upstreamsAreRecordings { (forecastSettings.budget, metNorwayBudget) = (.unlimited, .unlimited) }
        forecastSettings.memoryBytes = settings.cacheBytes / 2
        // Without a budget MET Norway is never asked: no fallback at all, and FMI's stale forecasts of any age stand.
        let fallback = metNorwayBudget.ratePerMinute > 0
            ? METNorwayFallback(
                client: METNorwayClient(
                    url: settings.metNorway.url, userAgent: UserAgent.identifying(product: context.product, contact: settings.contact),
                    client: context.upstream),
                store: METNorwayStore(pool: context.pool, maximumRows: settings.metNorway.maximumRows), budget: metNorwayBudget,
                metrics: context.metrics, spenders: context.spenders)
            : nil
        forecasts = ForecastService(
            client: fmi, store: store, settings: forecastSettings, fallback: fallback, metrics: context.metrics,
            spenders: context.spenders)
        metNorwayWithoutContact = fallback != nil && !context.upstreamsAreRecordings && (settings.contact?.isEmpty ?? true)
        let schedule = FetchSchedule.every(settings.interval)
        // Observations age by the minute: retry soon, and never wait longer than the schedule.
        job = FetchJob(
            source: Self.source, schedule: schedule, retry: RetryPolicy(initial: .seconds(60), maximum: settings.interval),
            timeout: context.runTimeout
        ) {
            try await observations.refresh()
        }
        let places = PlaceResolver(client: fmi, pool: context.pool, forecasts: forecasts, spenders: context.spenders, metrics: context.metrics)
        routes = WeatherRoutes(
            observations: observations, forecasts: forecasts, places: places, warnings: warnings, maxAge: context.cacheMaxAge,
            answerBytes: settings.cacheBytes / 2, metrics: context.metrics)
        self.places = WeatherPlaces(places: places)
        context.board.register(Self.source, staleAfter: schedule.staleAfter)
        self.observations = observations
    }

    public var jobs: [FetchJob] { [job] }

    public func load() async throws {
        if metNorwayWithoutContact {
            Logger(label: "pier.metno").warning(
                "PIER_CONTACT is not set: MET Norway, which stands in when FMI cannot answer, refuses requests without contact information (403)")
        }
        try await observations.load()
    }


    public func register(in router: inout Router) {
        routes.register(in: &router)
    }

    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        source == Self.source ? forecasts.health(cache: routes.cache) : nil
    }

    public var replay: [any ReplayMatcher] { [FMIReplay(), METNorwayReplay()] }

    /// The parser as `pier bench-parse` times it.
    public static let parsers = [ParseBenchmark("fmi", unit: "series", folder: "Tests/Fixtures/fmi", suffix: ".xml", iterations: 50) { try FMIDocumentParser.parse($0).count },
        // MET Norway stands in for FMI here (its reader is the METNorway module's).
        ParseBenchmark("metno", unit: "steps", folder: "Tests/Fixtures/metno", prefix: "compact-", suffix: ".json", iterations: 200) {
            try METNorwayReader.read($0).steps.count
        },
    ]
}
