import Feature
import Fetching
import HTTPServer

/// The Smart City Guide app's points of interest and city search: Geoapify Places and Geocoding on demand,
/// with Pier's key, one budget in credits per UTC day and answers kept for days (`/v1/places`, `/v1/geocode`;
/// sources `places` and `geocode`). Without `PIER_GEOAPIFY_KEY` both routes answer `503` and `/health` shows
/// both sources `disabled` (demo mode replays recordings, key or not).
public struct PlacesFeature: Feature {
    public typealias Service = PlacesService<CachedResponse>

    public var name: String { Service.placesSource }

    public struct Settings: Sendable {
        /// `PIER_GEOAPIFY_URL`: the host (`/v2/places` and `/v1/geocode/search` are appended).
        public var url = GeoapifyClient.defaultURL
        /// `PIER_GEOAPIFY_KEY` (or `_FILE`).
        public var key: String?
        public var service = Service.Settings()

        public init() {}

        public init(_ reader: SettingsReader) throws {
            url = try reader.url("PIER_GEOAPIFY_URL", default: url)
            key = try reader.secret("PIER_GEOAPIFY_KEY")
            service.placesTTL = try reader.hours("PIER_PLACES_TTL_H", default: service.placesTTL)
            service.geocodeTTL = try reader.hours("PIER_GEOCODE_TTL_H", default: service.geocodeTTL)
            service.retention = try reader.days("PIER_PLACES_RETENTION_D", default: service.retention)
            service.reuseMetres = try reader.number("PIER_PLACES_REUSE_M", default: service.reuseMetres, in: 0...1000)
            service.creditsPerDay = try reader.int("PIER_GEOAPIFY_CREDITS_PER_DAY", default: service.creditsPerDay ?? 0, in: 0...100_000_000)
            service.budget = try reader.perSecondBudget("PIER_GEOAPIFY", default: service.budget)
            service.placesCacheBytes = try reader.megabytes("PIER_PLACES_CACHE_MB", default: service.placesCacheBytes)
            service.geocodeCacheBytes = try reader.megabytes("PIER_GEOCODE_CACHE_MB", default: service.geocodeCacheBytes)
        }
    }

    public let service: Service?
    private let routes: PlacesRoutes

    public init(settings: Settings, context: FeatureContext) {
        let key = context.upstreamKey(settings.key)
        for source in [Service.placesSource, Service.geocodeSource] {
            context.board.register(source, staleAfter: .seconds(86_400), onDemand: true, disabled: key == nil)
        }
        service = key.map { key in
            var serviceSettings = settings.service
            serviceSettings.budget = context.upstreamBudget(serviceSettings.budget)
            return Service(
                client: GeoapifyClient(
                    baseURL: settings.url, key: key, client: context.upstream, product: context.product,
                    ttl: (serviceSettings.placesTTL, serviceSettings.geocodeTTL)),
                store: SharedAnswerStore(pool: context.pool),
                quota: context.dailyQuota(upstream: "geoapify", perDay: serviceSettings.creditsPerDay),
                settings: serviceSettings, board: context.board, runner: context.runner, metrics: context.metrics, prepare: PlacesRoutes.render)
        }
        routes = PlacesRoutes(service: service, clients: context.clients)
    }

    public func load() async throws { try await service?.load() }

    public func register(in router: inout Router) { routes.register(in: &router) }

    public func healthDetails(for source: String) -> String? {
        guard source == Service.placesSource || source == Service.geocodeSource else { return nil }
        return service?.healthJSON(for: source)
    }
}
