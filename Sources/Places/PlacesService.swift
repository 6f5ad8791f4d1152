import Basics
import Feature
import Foundation
import Geography
import Limits
import Metrics
import OnDemand
import PlacesFormat
import Scheduling
import SharedAnswers
import Synchronization

/// Geoapify places and geocoding for everyone, on one Geoapify upstream (calls per second, each client's share,
/// one pause, one daily quota in credits): an ``OnDemand`` engine for each. A places request within
/// ``Settings/reuseMetres`` of a stored one with the same radius, category set, limit and language reuses its
/// answer (a distance match, not a grid: two points 30 m apart always share, wherever they fall); the nearest
/// stored point wins.
public final class PlacesService: Sendable {
    public struct Settings: Sendable {
        /// `PIER_PLACES_TTL_H`: POIs change over weeks.
        public var placesTTL: Duration = .seconds(168 * 3600)
        /// `PIER_GEOCODE_TTL_H`.
        public var geocodeTTL: Duration = .seconds(30 * 86_400)
        /// `PIER_PLACES_REUSE_M`.
        public var reuseMetres = 100.0
        /// `PIER_GEOAPIFY_REQUESTS_PER_SECOND`, `…_BURST`, `…_CLIENT_SHARE` (the free plan allows 5 a second);
        /// `PIER_GEOAPIFY_CREDITS_PER_DAY` (the free plan has 3,000; 0: none).
        public var upstream = OnDemandUpstream.Settings(
            budget: BudgetSettings(ratePerMinute: 5 * 60, burst: 5, clientShare: 0.4), perDay: 2500, unit: "credits")
        /// `PIER_PLACES_CACHE_MB`, `PIER_GEOCODE_CACHE_MB`.
        public var placesCacheBytes = 32 << 20
        public var geocodeCacheBytes = 4 << 20
        /// `PIER_PLACES_RETENTION_D`: how long answers stay in PostgreSQL after they expire (served when
        /// Geoapify fails) before they are deleted.
        public var retention: Duration = .seconds(30 * 86_400)

        public init() {}
    }

    public static var placesSource: String { "places" }
    public static var geocodeSource: String { "geocode" }

    public let settings: Settings
    public let places: OnDemand<SharedAnswerSource<PlacesKey>>
    public let geocode: OnDemand<SharedAnswerSource<GeocodeKey>>
    private let store: SharedAnswerStore
    /// A request's point → the stored point whose answer it reuses.
    private let aliases = LRUCache<PlacesKey, PlacesKey>(budgetBytes: 4 << 20)
    /// Points being asked of Geoapify now: a neighbour arriving meanwhile waits for that answer.
    private let pending = Mutex<[PlacesKey]>([])

    public init(client: GeoapifyClient, store: SharedAnswerStore, upstream: OnDemandUpstream, settings: Settings, board: SourceStatusBoard?, runner: FetchRunner?, metrics: MetricsRegistry?) {
        self.settings = settings
        self.store = store
        let dropped = Dictionary(uniqueKeysWithValues: PlacesCollection.Dropped.allCases.map { reason in
            (reason, metrics?.counter(
                "pier_places_features_dropped_total", help: "Geoapify features left out (no point, wrong type, nameless, duplicate).",
                labels: [("reason", reason.rawValue)]))
        })
        places = OnDemand(
            kind: Self.placesSource,
            source: SharedAnswerSource(
                kind: Self.placesSource, store: store, retention: settings.retention, units: { $0.credits },
                fetch: { key in
                    let (answer, reasons) = try await client.places(key)
                    for reason in reasons { dropped[reason]??.increment() }
                    return answer
                },
                render: Self.render),
            upstream: upstream, report: UpstreamReport(source: Self.placesSource, board: board),
            settings: OnDemandSettings(cacheBytes: settings.placesCacheBytes), runner: runner, metrics: metrics)
        geocode = OnDemand(
            kind: Self.geocodeSource,
            source: SharedAnswerSource(
                kind: Self.geocodeSource, store: store, retention: settings.retention, fetch: { try await client.geocode($0) }, render: Self.render),
            upstream: upstream, report: UpstreamReport(source: Self.geocodeSource, board: board),
            settings: OnDemandSettings(cacheBytes: settings.geocodeCacheBytes), runner: runner, metrics: metrics)
    }

    /// The collection as Geoapify wrote it (cleaned); a request Geoapify refused (`400`, remembered an hour) with its message.
    @Sendable static func render(_ answer: StoredAnswer) -> OnDemandRendering {
        guard answer.outcome == .refused else { return .document(answer.body) }
        let message = String(decoding: answer.body, as: UTF8.self)
        return .refused("Geoapify refused this request" + (message.isEmpty ? "" : ": \(message)"))
    }

    /// Where named places lie, for other features (``PlaceLocator``).
    public var locator: PlaceLocator { PlaceLocator(geocode: geocode) }

    public func load() async throws {
        try await places.load()
        try await geocode.load()
    }

    /// The places answer memory holds for the request's point or the point it reuses (the route's fast path).
    public func cachedPlaces(for key: PlacesKey, now: Date = Date()) -> OnDemandResponse? {
        places.cachedResponse(for: aliases.peek(key) ?? key, now: now)
    }

    /// Decided from memory before the nearest stored point is looked up (``OnDemand/admission(for:client:now:)``):
    /// the refusal of a client whose share is spent, or the request's claim.
    public func admission(for key: PlacesKey, client: Spender?, now: Date = Date()) -> OnDemandAdmission<OnDemandResponse> {
        places.admission(for: aliases.peek(key) ?? key, client: client, now: now)
    }

    /// `claim`: the route asked ``admission(for:client:now:)`` just before.
    public func places(for key: PlacesKey, client: Spender?, claim: OnDemandClaim? = nil) async -> OnDemandResponse {
        await places.admitted(aliases.peek(key) ?? key, client: client, claim: claim) {
            let (canonical, asking) = await canonical(for: key)
            defer { if asking { pending.withLock { $0.removeAll { $0 == canonical } } } }
            return await places.admittedResponse(for: canonical, client: client)
        }
    }

    /// The stored (or being asked) point whose answer `key` reuses — the nearest within ``Settings/reuseMetres``
    /// — or `key` itself, then marked as being asked (`asking`).
    private func canonical(for key: PlacesKey) async -> (key: PlacesKey, asking: Bool) {
        if let alias = aliases[key] { return (alias, false) }
        if places.holds(key) { return (key, false) }
        let metres = settings.reuseMetres
        let parameters = key.parameters
        var found: PlacesKey?
        if metres > 0, let nearest = try? await store.nearest(
            kind: Self.placesSource, parameters: parameters.description, latitude: key.latitude, longitude: key.longitude, within: metres)
        {
            found = PlacesKey(latitude: nearest.latitude, longitude: nearest.longitude, parameters: parameters)
        }
        let chosen: (key: PlacesKey, asking: Bool) = pending.withLock { pending in
            if let found { return (found, false) }
            let neighbour = pending.filter { $0.parameters == parameters }.min { Self.metres(key, $0) < Self.metres(key, $1) }
            if let neighbour, Self.metres(key, neighbour) <= metres { return (neighbour, false) }
            pending.append(key)
            return (key, true)
        }
        if chosen.key != key { _ = aliases.set(chosen.key, for: key, cost: 160) }
        return chosen
    }

    private static func metres(_ a: PlacesKey, _ b: PlacesKey) -> Double {
        GreatCircle.metres(a.latitude, a.longitude, b.latitude, b.longitude)
    }

    /// Members of the `places` or `geocode` source's `/health` object: the shared budget and the day's
    /// credits, and that cache's size.
    public func health(for source: String) -> MergedObject {
        source == Self.placesSource ? places.health() : geocode.health()
    }
}
