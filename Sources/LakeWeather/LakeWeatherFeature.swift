import Basics
import Feature
import Geography
import HTTPServer
import LakeWeatherFormat
import Limits
import OnDemand
import ReplayMatching
import Scheduling
import Settings
import SharedAnswers

/// Next Wave's lake weather as one feature: OpenWeather's forecast per cell on demand, with Pier's key,
/// budget and daily quota; `/v1/lake-weather`. Without `PIER_OPENWEATHER_KEY` the route answers `503` and
/// `/health` shows the source `disabled` (demo mode replays recordings, key or not).
public struct LakeWeatherFeature: Feature {
    public typealias Engine = OnDemand<LakeWeatherSource>
    public static let source = "lake-weather"
    public var name: String { Self.source }

    public struct Settings: Sendable {
        /// `PIER_OPENWEATHER_URL`: the API base (`/forecast` is appended).
        public var url = OpenWeatherClient.defaultURL
        /// `PIER_OPENWEATHER_KEY` (or `_FILE`).
        public var key: String?
        /// `PIER_OPENWEATHER_TTL_S`, `PIER_OPENWEATHER_CELL_DEG`.
        public var source = LakeWeatherSource.Settings()
        /// `PIER_OPENWEATHER_REQUESTS_PER_MINUTE`, `…_BURST`, `…_CLIENT_SHARE` (the free plan allows 60 a minute);
        /// `PIER_OPENWEATHER_REQUESTS_PER_DAY` (the free plan's 1,000,000 a month is ~33,000 a day; 0: none).
        public var upstream = OnDemandUpstream.Settings(
            budget: BudgetSettings(ratePerMinute: 50, burst: 10, clientShare: 0.25), perDay: 30_000)
        /// `PIER_LAKE_WEATHER_CACHE_MB`.
        public var engine = OnDemandSettings(cacheBytes: 32 << 20)

        public init() {}

        public init(_ reader: SettingsReader) throws {
            url = try reader.url("PIER_OPENWEATHER_URL", default: url, meaning: "the forecast upstream (`/forecast?lat=&lon=&appid=&units=metric` is appended)")
            key = try reader.secret("PIER_OPENWEATHER_KEY", meaning: "OpenWeather key (sent only to OpenWeather, in its `appid` query parameter; redacted from every log line, error and capture); or `PIER_OPENWEATHER_KEY_FILE`. Unset: `/v1/lake-weather` answers `503` \"not configured\" with `Retry-After: 3600` and `/health` lists `lake-weather` as `disabled`; unset: lake weather answers `503` and `/health` shows it `disabled`")
            source.ttl = try reader.seconds("PIER_OPENWEATHER_TTL_S", default: source.ttl, meaning: "a cell's forecast is fresh this long; at least `600` (OpenWeather updates at most every 10 minutes — a smaller value is refused at start)")
            if source.ttl < LakeWeatherSource.Settings.minimumTTL {
                throw SettingsProblem.invalid(
                    variable: "PIER_OPENWEATHER_TTL_S", value: reader.string("PIER_OPENWEATHER_TTL_S", meaning: "a cell's forecast is fresh this long; at least `600` (OpenWeather updates at most every 10 minutes — a smaller value is refused at start)") ?? "",
                    expected: "at least 600 seconds (OpenWeather updates at most every 10 minutes)")
            }
            source.cellDegrees = try reader.number("PIER_OPENWEATHER_CELL_DEG", default: source.cellDegrees, in: 0.001...1, meaning: "points are rounded to this grid (~5.5 km north–south); one upstream call per cell serves everyone in it")
            upstream = try reader.upstream(
                "PIER_OPENWEATHER", perSecond: false, rate: "sustained OpenWeather calls per process (the free plan allows 60 a minute per key: divide by the number of replicas)", of: "cells",
                perDay: ("PIER_OPENWEATHER_REQUESTS_PER_DAY", "calls per UTC day **for the key**, counted in PostgreSQL across replicas and restarts (the free plan's 1,000,000 a month is ~33,000 a day); spent: stale answers or `503` until midnight UTC (`Retry-After` at most an hour, as every refusal); `0` = never call"), default: upstream)
            engine.cacheBytes = try reader.megabytes("PIER_LAKE_WEATHER_CACHE_MB", default: engine.cacheBytes, meaning: "bytes of forecasts kept in memory (upstream bytes and the rendered answer, ~50 KB per cell)")
        }
    }

    public let engine: Engine?
    private let source: LakeWeatherSource.Settings

    public init(settings: Settings, context: FeatureContext) {
        let key = context.upstreamKey(settings.key)
        source = settings.source
        context.board.register(Self.source, staleAfter: .seconds(86_400), onDemand: true, disabled: key == nil)
        engine = key.map { key in
            OnDemand(
                kind: Self.source,
                source: LakeWeatherSource(
                    client: OpenWeatherClient(baseURL: settings.url, key: key, client: context.upstream), store: SharedAnswerStore(pool: context.pool),
                    settings: settings.source, metrics: context.metrics),
                upstream: context.onDemandUpstream("OpenWeather", metric: "openweather", settings: settings.upstream),
                report: UpstreamReport(source: Self.source, board: context.board), settings: settings.engine, runner: context.runner,
                metrics: context.metrics)
        }
    }

    public func load() async throws { try await engine?.load() }

    /// `GET /v1/lake-weather?lat=…&lon=…`: OpenWeather's 5-day / 3-hour forecast for the point's cell, as
    /// OpenWeather writes it, plus Pier's `daily` summary. A drop-in for `…/data/2.5/forecast`: `appid` is
    /// accepted and ignored, `units` must be `metric` (the only units Pier fetches).
    public func register(in router: inout Router) {
        router.onDemand(
            Self.path, engine, notConfigured: "lake weather is not configured on this server"
        ) { [source] request, _ in
            let point = try Coordinate(request.query)
            if let units = request.query["units"], units != "metric" {
                throw HTTPError(.badRequest, "units must be metric (Pier fetches metric forecasts only), not '\(units.prefix(20))'")
            }
            return source.cell(for: point)
        }
    }

    public static let path = "/v1/lake-weather"

    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        source == Self.source ? engine?.health() : nil
    }

    public var replay: [any ReplayMatcher] { [OpenWeatherReplay()] }

    /// OpenWeather's forecast, as `pier bench-parse` times it.
    public static var parsers: [ParseBenchmark] {
        [ParseBenchmark("openweather", unit: "slots", folder: "Tests/Fixtures/openweather", prefix: "forecast-", suffix: ".json", iterations: 500) {
            try ForecastDocument(parsing: $0).slots.count
        }]
    }
}
