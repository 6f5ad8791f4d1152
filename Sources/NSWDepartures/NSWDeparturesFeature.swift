import Basics
import Feature
import Foundation
import HTTPServer
import Limits
import NSWDeparturesFormat
import OnDemand
import ReplayMatching
import Scheduling
import Settings
import SharedAnswers

/// The Trip Planner app's Sydney departures as one feature: TfNSW's `departure_mon` per stop on demand, with
/// Pier's key, budget and daily quota; `/v1/nsw/departures`. Without `PIER_NSW_API_KEY` the route answers
/// `503` and `/health` shows the source `disabled` (demo mode replays recordings, key or not).
public struct NSWDeparturesFeature: Feature {
    public typealias Engine = OnDemand<NSWDeparturesSource>
    public static let source = "nsw"
    public var name: String { Self.source }

    public struct Settings: Sendable {
        /// `PIER_NSW_URL`: the Trip Planner API's base (`/departure_mon` is appended).
        public var url = TfNSWClient.defaultURL
        /// `PIER_NSW_API_KEY` (or `_FILE`).
        public var key: String?
        /// `PIER_NSW_TTL_S`.
        public var source = NSWDeparturesSource.Settings()
        /// `PIER_NSW_REQUESTS_PER_SECOND` (× 60), `PIER_NSW_BURST`, `PIER_NSW_CLIENT_SHARE`: under the Bronze plan's 5 a
        /// second; a client may start two calls at once (the app shows a bus and a light-rail stop).
        /// `PIER_NSW_REQUESTS_PER_DAY` (the Bronze plan allows 60,000; some room is left for the key's other uses and
        /// the replicas' races). A pause of 5 s after `403 Account Over Rate Limit` or `429` without `Retry-After`.
        public var upstream = OnDemandUpstream.Settings(
            budget: BudgetSettings(ratePerMinute: 240, burst: 4, clientShare: 0.5), perDay: 50_000, timeZone: DepartureQuery.sydney,
            resets: " (it resets at midnight in Sydney)", pauseAfterThrottle: 5)
        /// `PIER_NSW_CACHE_MB`: ~56 KB a stop (its departures and up to three modes' answers), so ~1,000 stops; a
        /// stop that left memory costs a PostgreSQL read, not an upstream call. Stale answers are served 15 s at a time.
        public var engine = OnDemandSettings(cacheBytes: 64 << 20, provisional: .seconds(15), retryAfterFailure: 30)

        public init() {}

        public init(_ reader: SettingsReader) throws {
            url = try reader.url("PIER_NSW_URL", default: url, meaning: "TfNSW's Trip Planner API (`/departure_mon?…` is appended)")
            key = try reader.secret("PIER_NSW_API_KEY", meaning: "TfNSW Open Data key (sent only to TfNSW, in the `Authorization: apikey …` header — never in a URL, log line, error or capture); or `PIER_NSW_API_KEY_FILE`. Unset: `/v1/nsw/departures` answers `503` \"not configured\" with `Retry-After: 3600` and `/health` lists `nsw` as `disabled`; unset: Sydney departures answer `503` and `/health` shows them `disabled`")
            source.ttl = try reader.seconds("PIER_NSW_TTL_S", default: source.ttl, meaning: "a stop's departures are fresh this long at best (real-time data); stretched automatically when many stops are watched so the daily quota lasts the day (`/health` → `nsw.ttl_s`)")
            upstream = try reader.upstream(
                "PIER_NSW", perSecond: true, rate: "sustained TfNSW calls per process (the Bronze plan allows 5 a second per key: divide by the number of replicas)", of: "stops",
                perDay: ("PIER_NSW_REQUESTS_PER_DAY", "calls per day **for the key**, the day starting at midnight in Sydney, counted in PostgreSQL across replicas and restarts (the Bronze plan allows 60,000; the rest is room for replicas' races and the key's other uses); spread over the watched stops; spent: stale answers or `503` until midnight in Sydney (`Retry-After` at most an hour); `0` = never call"), default: upstream)
            engine.cacheBytes = try reader.megabytes("PIER_NSW_CACHE_MB", default: engine.cacheBytes, meaning: "bytes of departures and rendered answers kept in memory (~56 KB per stop with three modes' answers: ~1,000 stops; a stop that left memory costs a PostgreSQL read, not an upstream call)")
        }
    }

    public let engine: Engine?

    public init(settings: Settings, context: FeatureContext) {
        let key = context.upstreamKey(settings.key)
        context.board.register(Self.source, staleAfter: .seconds(3600), onDemand: true, disabled: key == nil)
        engine = key.map { key in
            let upstream = context.onDemandUpstream("TfNSW", metric: "tfnsw", settings: settings.upstream)
            return OnDemand(
                kind: Self.source,
                source: NSWDeparturesSource(
                    client: TfNSWClient(baseURL: settings.url, key: key, client: context.upstream), store: SharedAnswerStore(pool: context.pool),
                    quota: upstream.quota, settings: settings.source, metrics: context.metrics),
                upstream: upstream, report: UpstreamReport(source: Self.source, board: context.board), settings: settings.engine,
                runner: context.runner, metrics: context.metrics)
        }
    }

    public func load() async throws { try await engine?.load() }

    /// `GET /v1/nsw/departures?stop=…&mode=…` (also `date=YYYYMMDD`, `time=HHmm`): the next departures from a
    /// Sydney stop in the shape the Trip Planner app decodes (`{"stopEvents": [ … ]}`), `404` for a stop TfNSW
    /// does not know.
    public func register(in router: inout Router) {
        router.onDemand(Self.path, engine, notConfigured: "Sydney departures are not configured on this server") { request, now in
            try DepartureQuery(request, now: now)
        }
    }

    public static let path = "/v1/nsw/departures"

    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        source == Self.source ? engine?.health() : nil
    }

    public var replay: [any ReplayMatcher] { [TfNSWReplay()] }

    /// TfNSW's departure monitor, as `pier bench-parse` times it.
    public static var parsers: [ParseBenchmark] {
        [ParseBenchmark("nsw", unit: "departures", folder: "Tests/Fixtures/nsw", prefix: "departure_mon-", suffix: ".json", iterations: 200) {
            guard case .departures(let departures) = try DepartureMonitor(parsing: $0).content else { return 0 }
            return departures.count
        }]
    }
}
