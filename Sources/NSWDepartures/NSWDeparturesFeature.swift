import Feature
import Fetching
import HTTPServer

/// The Trip Planner app's Sydney departures as one feature: TfNSW's `departure_mon` per stop on demand, with
/// Pier's key, budget and daily quota; `/v1/nsw/departures`. Without `PIER_NSW_API_KEY` the route answers
/// `503` and `/health` shows the source `disabled` (demo mode replays recordings, key or not).
public struct NSWDeparturesFeature: Feature {
    public typealias Service = NSWDeparturesService<NSWDeparturesRoutes.Prepared>
    public static let source = Service.source
    public var name: String { Self.source }

    public struct Settings: Sendable {
        /// `PIER_NSW_URL`: the Trip Planner API's base (`/departure_mon` is appended).
        public var url = TfNSWClient.defaultURL
        /// `PIER_NSW_API_KEY` (or `_FILE`).
        public var key: String?
        public var service = Service.Settings()

        public init() {}

        public init(_ reader: SettingsReader) throws {
            url = try reader.url("PIER_NSW_URL", default: url)
            key = try reader.secret("PIER_NSW_API_KEY")
            service.ttl = try reader.seconds("PIER_NSW_TTL_S", default: service.ttl)
            service.budget = try reader.perSecondBudget("PIER_NSW", default: service.budget)
            service.perDay = try reader.int("PIER_NSW_REQUESTS_PER_DAY", default: service.perDay ?? 0, in: 0...100_000_000)
            service.cacheBytes = try reader.megabytes("PIER_NSW_CACHE_MB", default: service.cacheBytes)
        }
    }

    public let service: Service?
    private let routes: NSWDeparturesRoutes

    public init(settings: Settings, context: FeatureContext) {
        let key = context.upstreamKey(settings.key)
        context.board.register(Self.source, staleAfter: .seconds(3600), onDemand: true, disabled: key == nil)
        service = key.map { key in
            var serviceSettings = settings.service
            serviceSettings.budget = context.upstreamBudget(serviceSettings.budget)
            return Service(
                client: TfNSWClient(baseURL: settings.url, key: key, client: context.upstream),
                store: NSWDeparturesStore(pool: context.pool),
                quota: context.dailyQuota(upstream: "tfnsw", perDay: serviceSettings.perDay, timeZone: DepartureQuery.sydney),
                settings: serviceSettings, board: context.board, runner: context.runner, metrics: context.metrics,
                prepare: NSWDeparturesRoutes.prepare)
        }
        routes = NSWDeparturesRoutes(service: service, clients: context.clients)
    }

    public func load() async throws { try await service?.load() }

    public func register(in router: inout Router) { routes.register(in: &router) }

    public func healthDetails(for source: String) -> String? {
        source == Self.source ? service?.healthJSON() : nil
    }
}
