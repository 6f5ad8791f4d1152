import Feature
import Fetching
import HTTPServer

/// Next Wave's lake weather as one feature: OpenWeather's forecast per cell on demand, with Pier's key,
/// budget and daily quota; `/v1/lake-weather`. Without `PIER_OPENWEATHER_KEY` the route answers `503` and
/// `/health` shows the source `disabled` (demo mode replays recordings, key or not).
public struct LakeWeatherFeature: Feature {
    public static let source = LakeWeatherService<CachedResponse>.source
    public var name: String { Self.source }

    public struct Settings: Sendable {
        /// `PIER_OPENWEATHER_URL`: the API base (`/forecast` is appended).
        public var url = OpenWeatherClient.defaultURL
        /// `PIER_OPENWEATHER_KEY` (or `_FILE`).
        public var key: String?
        public var service = LakeWeatherService<CachedResponse>.Settings()

        public init() {}

        public init(_ reader: SettingsReader) throws {
            url = try reader.url("PIER_OPENWEATHER_URL", default: url)
            key = try reader.secret("PIER_OPENWEATHER_KEY")
            service.ttl = try reader.seconds("PIER_OPENWEATHER_TTL_S", default: service.ttl)
            if service.ttl < LakeWeatherService<CachedResponse>.Settings.minimumTTL {
                throw SettingsProblem.invalid(
                    variable: "PIER_OPENWEATHER_TTL_S", value: reader.string("PIER_OPENWEATHER_TTL_S") ?? "",
                    expected: "at least 600 seconds (OpenWeather updates at most every 10 minutes)")
            }
            service.cellDegrees = try reader.number("PIER_OPENWEATHER_CELL_DEG", default: service.cellDegrees, in: 0.001...1)
            service.budget = try reader.budget("PIER_OPENWEATHER", default: service.budget)
            service.perDay = try reader.int("PIER_OPENWEATHER_REQUESTS_PER_DAY", default: service.perDay ?? 0, in: 0...100_000_000)
            service.cacheBytes = try reader.megabytes("PIER_LAKE_WEATHER_CACHE_MB", default: service.cacheBytes)
        }
    }

    public let service: LakeWeatherService<CachedResponse>?
    private let routes: LakeWeatherRoutes

    public init(settings: Settings, context: FeatureContext) {
        let key = context.upstreamKey(settings.key)
        context.board.register(Self.source, staleAfter: .seconds(86_400), onDemand: true, disabled: key == nil)
        service = key.map { key in
            var serviceSettings = settings.service
            serviceSettings.budget = context.upstreamBudget(serviceSettings.budget)
            return LakeWeatherService(
                client: OpenWeatherClient(baseURL: settings.url, key: key, client: context.upstream),
                store: LakeWeatherStore(pool: context.pool), quota: context.dailyQuota(upstream: "openweather", perDay: serviceSettings.perDay),
                settings: serviceSettings, board: context.board, runner: context.runner, metrics: context.metrics,
                prepare: LakeWeatherRoutes.prepare)
        }
        routes = LakeWeatherRoutes(service: service, clients: context.clients)
    }

    public func load() async throws { try await service?.load() }

    public func register(in router: inout Router) { routes.register(in: &router) }

    public func healthDetails(for source: String) -> String? {
        source == Self.source ? service?.healthJSON() : nil
    }
}
