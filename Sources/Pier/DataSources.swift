import Fetching
import Foundation
import HTTPServer
import Lakes
import Logging
import Metrics
import Postgres
import Ships
import Stationboard
import Weather

/// The fetched data sources wired together: services, their jobs, the runner and the status board.
/// Shared by `serve` (routes + background scheduler) and `fetch` (one run).
struct DataSources {
    let ships: ShipService
    let lakes: LakeService
    let shipsJob: FetchJob
    let lakesJob: FetchJob
    let observations: ObservationService
    let forecasts: ForecastService
    let weatherJob: FetchJob
    let stationboard: StationboardService
    let board: SourceStatusBoard
    let runner: FetchRunner
    let log: FetchRunLog
    private let settings: Configuration.FetchSettings
    private let trustedProxies: [AddressRange]
    private let metrics: MetricsRegistry?

    /// - Parameter capture: which runs keep their upstream answers; by default failed and suspect ones when
    ///   `PIER_SAVE_SUSPECT_DIR` is set.
    init(configuration: Configuration, pool: PostgresPool, metrics: MetricsRegistry?, capture: FetchRunner.CapturePolicy? = nil) {
        let settings = configuration.fetch
        self.settings = settings
        trustedProxies = configuration.trustedProxies
        self.metrics = metrics
        let upstream = UpstreamClient(configuration: .init(timeout: settings.upstreamTimeout, maximumBodyBytes: settings.upstreamMaxBytes))

        var shipSettings = ShipService.Configuration()
        shipSettings.maxAge = settings.cacheMaxAge
        let shipSchedule = FetchSchedule.daily(hour: settings.shipsAt.hour, minute: settings.shipsAt.minute, timeZone: shipSettings.timeZone)
        shipSettings.staleAfter = shipSchedule.staleAfter
        let ships = ShipService(
            client: ZSGClient(baseURL: settings.zsgURL, client: upstream, pause: settings.zsgPause),
            store: ShipStore(pool: pool), configuration: shipSettings, metrics: metrics)

        var lakeSettings = LakeService.Configuration()
        lakeSettings.maxAge = settings.cacheMaxAge
        let lakeSchedule = FetchSchedule.every(settings.lakesInterval)
        lakeSettings.staleAfter = lakeSchedule.staleAfter
        let lakes = LakeService(
            client: MeteoNewsClient(url: settings.meteoNewsURL, client: upstream), store: LakeStore(pool: pool),
            configuration: lakeSettings, metrics: metrics)

        let retry = RetryPolicy(initial: settings.retryInitial, maximum: settings.retryMaximum)
        shipsJob = FetchJob(source: "ships", schedule: shipSchedule, retry: retry, timeout: settings.runTimeout) {
            try await ships.refresh()
        }
        lakesJob = FetchJob(source: "lakes", schedule: lakeSchedule, retry: retry, timeout: settings.runTimeout) {
            try await lakes.refresh()
        }
        let fmi = FMIClient(baseURL: settings.fmiURL, forecastQuery: settings.fmiForecastQuery, client: upstream)
        let weatherStore = WeatherStore(pool: pool)
        let observations = ObservationService(client: fmi, store: weatherStore)
        forecasts = ForecastService(
            client: fmi, store: weatherStore,
            settings: ForecastService.Settings(
                ttl: settings.forecastTTL.seconds, neighbourKilometres: settings.forecastNeighbourKilometres,
                budget: .init(ratePerMinute: settings.fmiRequestsPerMinute, burst: settings.fmiBurst, clientShare: settings.fmiClientShare)),
            memory: WeatherMemory(budgetBytes: settings.weatherCacheBytes), metrics: metrics)
        let weatherSchedule = FetchSchedule.every(settings.weatherInterval)
        weatherJob = FetchJob(source: "weather", schedule: weatherSchedule, retry: RetryPolicy(initial: .seconds(60), maximum: settings.weatherInterval), timeout: settings.runTimeout) {
            try await observations.refresh()
        }
        self.observations = observations
        board = SourceStatusBoard(sources: [
            ("ships", shipSchedule.staleAfter), ("lakes", lakeSchedule.staleAfter), ("weather", weatherSchedule.staleAfter),
            // Asked on demand, not on a schedule: idle until first asked, stale when no answer came for a day.
            ("stationboard", 86_400),
        ], onDemand: ["stationboard"])
        var boardSettings = StationboardService.Settings()
        boardSettings.ttlToday = settings.stationboardTTLToday.seconds
        boardSettings.ttl = settings.stationboardTTL.seconds
        boardSettings.budget = .init(
            ratePerMinute: settings.transportRequestsPerMinute, burst: settings.transportBurst, clientShare: settings.transportClientShare)
        boardSettings.cacheBytes = settings.stationboardCacheBytes
        stationboard = StationboardService(
            client: TransportClient(baseURL: settings.transportURL, client: upstream), store: StationboardStore(pool: pool),
            courses: { ships.courses }, settings: boardSettings, board: board, metrics: metrics)
        log = FetchRunLog(pool: pool)
        let policy = capture ?? settings.saveSuspectDirectory.map {
            FetchRunner.CapturePolicy.failedRuns(URL(fileURLWithPath: $0), keep: settings.saveSuspectKeep)
        } ?? .none
        runner = FetchRunner(log: log, board: board, metrics: metrics, capture: policy)
        self.ships = ships
        self.lakes = lakes
    }

    /// The job named `source` (`ships`, `lakes`).
    func job(_ source: String) -> FetchJob? {
        jobs.first { $0.source == source }
    }

    var jobs: [FetchJob] { [shipsJob, lakesJob, weatherJob] }

    /// Fills every service's memory from PostgreSQL, so a restart serves at once without scraping.
    func load() async throws {
        try await ships.load()
        try await lakes.load()
        try await observations.load()
        try await stationboard.load()
    }

    /// Reloads one source's data from PostgreSQL (another process stored new data), or all when `nil`.
    func reload(_ source: String?) async {
        do {
            if source == nil || source == "ships" { try await ships.load() }
            if source == nil || source == "lakes" { try await lakes.load() }
            if source == nil || source == "weather" { try await observations.load() }
        } catch {
            Logger(label: "pier.changes").warning("could not reload new data", metadata: ["source": "\(source ?? "all")", "error": "\(error)"])
        }
    }

    func register(in router: inout Router) {
        let runner = runner, shipsJob = shipsJob
        ShipRoutes(service: ships, token: BearerToken(secret: settings.refreshToken)) { await runner.run(shipsJob) }
            .register(in: &router)
        LakeRoutes(service: lakes).register(in: &router)
        WeatherRoutes(
            observations: observations, forecasts: forecasts, maxAge: settings.cacheMaxAge,
            clients: ClientAddress(trustedProxies: trustedProxies), metrics: metrics
        ).register(in: &router)
        StationboardRoutes(service: stationboard, clients: ClientAddress(trustedProxies: trustedProxies)).register(in: &router)
    }

    /// More members for `/health`'s sources: the folder of each one's last saved capture, and the weather
    /// source's FMI budget and memory tier.
    var healthDetails: [String: @Sendable () -> String] {
        let forecasts = forecasts, runner = runner, stationboard = stationboard
        var details: [String: @Sendable () -> String] = ["stationboard": { stationboard.healthJSON() }]
        for job in jobs {
            let source = job.source
            details[source] = {
                let capture = "\"last_capture\":" + (runner.lastCapture(for: source).map(JSONString.quote) ?? "null")
                return source == "weather" ? capture + "," + forecasts.healthJSON() : capture
            }
        }
        return details
    }

    func scheduler(isLeader: @escaping @Sendable () -> Bool = { true }) -> FetchScheduler {
        FetchScheduler(
            runner: runner, log: log, jobs: jobs,
            configuration: .init(jitter: settings.jitter, tick: settings.tick), isLeader: isLeader)
    }
}
