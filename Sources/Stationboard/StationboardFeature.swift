import Feature
import Fetching
import HTTPServer
import Ships

/// A pier's departures as one feature: transport.opendata.ch's stationboard on demand, cached and shared,
/// with the ship of each course from the ships feature's course index; `/v1/stationboard`.
public struct StationboardFeature: Feature {
    public static let source = StationboardService<CachedResponse>.source
    public var name: String { Self.source }

    /// The feature's settings; the service's own defaults (``StationboardService/Settings``) are the defaults.
    public struct Settings: Sendable {
        /// `PIER_TRANSPORT_URL`: the API base (`/stationboard` is appended).
        public var transportURL = TransportClient.defaultURL
        /// `PIER_STATIONBOARD_TTL_TODAY_S`, `PIER_STATIONBOARD_TTL_S`, `PIER_TRANSPORT_REQUESTS_PER_MINUTE`,
        /// `PIER_TRANSPORT_BURST`, `PIER_TRANSPORT_CLIENT_SHARE`, `PIER_STATIONBOARD_CACHE_MB`.
        public var service = StationboardService<CachedResponse>.Settings()

        public init() {}

        public init(_ reader: SettingsReader) throws {
            transportURL = try reader.url("PIER_TRANSPORT_URL", default: transportURL)
            service.ttlToday = try reader.seconds("PIER_STATIONBOARD_TTL_TODAY_S", default: service.ttlToday)
            service.ttl = try reader.seconds("PIER_STATIONBOARD_TTL_S", default: service.ttl)
            service.budget = try reader.budget("PIER_TRANSPORT", default: service.budget)
            service.cacheBytes = try reader.megabytes("PIER_STATIONBOARD_CACHE_MB", default: service.cacheBytes)
        }
    }

    public let service: StationboardService<CachedResponse>
    private let routes: StationboardRoutes

    /// - Parameter courses: which ship runs which course (the ships feature's ``ShipService/courses``).
    public init(settings: Settings, context: FeatureContext, courses: @escaping @Sendable () -> CourseIndex) {
        var serviceSettings = settings.service
        if context.upstreamsAreRecordings { serviceSettings.budget = .unlimited }
        // Asked on demand, not on a schedule: idle until first asked, stale when no answer came for a day.
        context.board.register(Self.source, staleAfter: .seconds(86_400), onDemand: true)
        service = StationboardService(
            client: TransportClient(baseURL: settings.transportURL, client: context.upstream),
            store: StationboardStore(pool: context.pool), courses: courses, settings: serviceSettings, board: context.board,
            metrics: context.metrics, prepare: StationboardRoutes.prepare)
        routes = StationboardRoutes(service: service, clients: context.clients)
    }

    public func load() async throws { try await service.load() }

    public func register(in router: inout Router) { routes.register(in: &router) }

    public func healthDetails(for source: String) -> String? {
        source == Self.source ? service.healthJSON() : nil
    }
}
