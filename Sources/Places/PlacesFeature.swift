import Basics
import Feature
import Foundation
import HTTPServer
import PlacesFormat
import ReplayMatching
import Settings
import SharedAnswers

/// The Smart City Guide app's points of interest and city search: Geoapify Places and Geocoding on demand,
/// with Pier's key, one budget in credits per UTC day and answers kept for days (`/v1/places`, `/v1/geocode`;
/// sources `places` and `geocode`). Without `PIER_GEOAPIFY_KEY` both routes answer `503` and `/health` shows
/// both sources `disabled` (demo mode replays recordings, key or not).
public struct PlacesFeature: Feature {
    public typealias Service = PlacesService

    public var name: String { Service.placesSource }

    public struct Settings: Sendable {
        /// `PIER_GEOAPIFY_URL`: the host (`/v2/places` and `/v1/geocode/search` are appended).
        public var url = GeoapifyClient.defaultURL
        /// `PIER_GEOAPIFY_KEY` (or `_FILE`).
        public var key: String?
        public var service = Service.Settings()

        public init() {}

        public init(_ reader: SettingsReader) throws {
            url = try reader.url("PIER_GEOAPIFY_URL", default: url, meaning: "Geoapify's host (`/v2/places?…` and `/v1/geocode/search?…` are appended)")
            key = try reader.secret("PIER_GEOAPIFY_KEY", meaning: "Geoapify key (sent only to Geoapify, in its `apiKey` query parameter — Geoapify's only way — and redacted from every log line, error and capture); or `PIER_GEOAPIFY_KEY_FILE`. Unset: `/v1/places` and `/v1/geocode` answer `503` \"not configured\" with `Retry-After: 3600` and `/health` lists `places` and `geocode` as `disabled`; unset: places and geocoding answer `503` and `/health` shows them `disabled`")
            service.placesTTL = try reader.hours("PIER_PLACES_TTL_H", default: service.placesTTL, meaning: "a places answer is fresh this long (POIs change over weeks), then Geoapify is asked again when someone asks")
            service.geocodeTTL = try reader.hours("PIER_GEOCODE_TTL_H", default: service.geocodeTTL, meaning: "a geocoding answer (per normalised text and language) is fresh this long")
            service.retention = try reader.days("PIER_PLACES_RETENTION_D", default: service.retention, meaning: "places and geocoding answers are deleted from PostgreSQL this many days after they expire (until then they are served stale when Geoapify fails); `0` = at expiry")
            service.reuseMetres = try reader.number("PIER_PLACES_REUSE_M", default: service.reuseMetres, in: 0...1000, meaning: "a places request within this distance of a stored one (same radius, category set, limit, language) reuses its answer; `0` = exact points only")
            service.upstream = try reader.upstream(
                "PIER_GEOAPIFY", perSecond: true, rate: "sustained Geoapify calls per process, places and geocoding together (the free plan allows 5 a second: divide by the number of replicas)", of: "requests",
                perDay: ("PIER_GEOAPIFY_CREDITS_PER_DAY", "Geoapify **credits** per UTC day for the key, counted in PostgreSQL across replicas and restarts: a places call costs one per 20 places asked (`limit=50`: 3), a geocoding call one (the free plan has 3,000); spent: stale answers or `503` until midnight UTC (`Retry-After` at most an hour); `0` = never call"), default: service.upstream)
            service.placesCacheBytes = try reader.megabytes("PIER_PLACES_CACHE_MB", default: service.placesCacheBytes, meaning: "bytes of places / geocoding answers kept in memory (~40 KB per places answer; one that left memory costs a PostgreSQL read, not a call)")
            service.geocodeCacheBytes = try reader.megabytes("PIER_GEOCODE_CACHE_MB", default: service.geocodeCacheBytes, meaning: "bytes of places / geocoding answers kept in memory (~40 KB per places answer; one that left memory costs a PostgreSQL read, not a call)")
        }
    }

    public static let placesPath = "/v1/places"
    public static let geocodePath = "/v1/geocode"
    /// Geoapify's own path under Pier's `/v1`, so the app swaps only its host (`…/v1/geocode` + `/search`).
    public static let geocodeSearchPath = "/v1/geocode/search"

    public let service: Service?

    public init(settings: Settings, context: FeatureContext) {
        let key = context.upstreamKey(settings.key)
        for source in [Service.placesSource, Service.geocodeSource] {
            context.board.register(source, staleAfter: .seconds(86_400), onDemand: true, disabled: key == nil)
        }
        service = key.map { key in
            Service(
                client: GeoapifyClient(
                    baseURL: settings.url, key: key, client: context.upstream, product: context.product,
                    ttl: (settings.service.placesTTL, settings.service.geocodeTTL)),
                store: SharedAnswerStore(pool: context.pool),
                upstream: context.onDemandUpstream("Geoapify", metric: "geoapify", settings: settings.service.upstream),
                settings: settings.service, board: context.board, runner: context.runner, metrics: context.metrics)
        }
    }

    public func load() async throws { try await service?.load() }

    /// `GET /v1/places` and `GET /v1/geocode`: Geoapify's answers in Geoapify's GeoJSON shape (the app changes
    /// the URL and drops `apiKey`), with Pier's key, cached for everyone; a request Geoapify refused is `400`.
    public func register(in router: inout Router) {
        let notConfigured = "places and geocoding are not configured on this server (no Geoapify key)"
        let places: @Sendable (HTTPRequest, Date) throws -> PlacesKey = { request, _ in try PlacesQuery.key(request.query) }
        if let service {
            router.onDemand(
                Self.placesPath, places, spenders: service.places.upstream.spenders, cached: service.cachedPlaces(for:now:), admission: service.admission(for:client:now:),
                answer: { await service.places(for: $0, client: $1, claim: $2) })
        } else {
            router.notConfigured(Self.placesPath, notConfigured, places)
        }
        for path in [Self.geocodePath, Self.geocodeSearchPath] {
            router.onDemand(path, service?.geocode, notConfigured: notConfigured) { request, _ in try GeocodeKey(request.query) }
        }
    }

    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        guard source == Service.placesSource || source == Service.geocodeSource else { return nil }
        return service?.health(for: source)
    }

    public var replay: [any ReplayMatcher] { [GeoapifyReplay()] }

    /// Geoapify's places, cleaned as the app would, as `pier bench-parse` times it.
    public static var parsers: [ParseBenchmark] {
        [ParseBenchmark("places", unit: "places", folder: "Tests/Fixtures/geoapify", prefix: "places-", suffix: ".json", iterations: 500) {
            try PlacesCollection(parsing: $0, places: true).count
        }]
    }
}
