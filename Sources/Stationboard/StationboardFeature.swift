import Basics
import Feature
import HTTPServer
import Limits
import OnDemand
import ReplayMatching
import Scheduling
import Settings
import SharedAnswers
import Ships
import StationboardFormat

/// A pier's departures as one feature: transport.opendata.ch's stationboard on demand, cached and shared,
/// with the ship of each course from the ships feature's course index; `/v1/stationboard`.
public struct StationboardFeature: Feature {
    public typealias Engine = OnDemand<StationboardSource>
    public static let source = "stationboard"
    public var name: String { Self.source }

    public struct Settings: Sendable {
        /// `PIER_TRANSPORT_URL`: the API base (`/stationboard` is appended).
        public var transportURL = TransportClient.defaultURL
        /// `PIER_STATIONBOARD_TTL_TODAY_S`, `PIER_STATIONBOARD_TTL_S`.
        public var source = StationboardSource.Settings()
        /// `PIER_TRANSPORT_REQUESTS_PER_MINUTE`, `PIER_TRANSPORT_BURST`, `PIER_TRANSPORT_CLIENT_SHARE`; a minute's
        /// pause after a `429` without `Retry-After`.
        public var upstream = OnDemandUpstream.Settings(
            budget: BudgetSettings(ratePerMinute: 30, burst: 10, clientShare: 0.25), pauseAfterThrottle: 60)
        /// `PIER_STATIONBOARD_CACHE_MB`; stale answers are served 30 s at a time.
        public var engine = OnDemandSettings(cacheBytes: 64 << 20, provisional: .seconds(30), retryAfterFailure: 60)

        public init() {}

        public init(_ reader: SettingsReader) throws {
            transportURL = try reader.url("PIER_TRANSPORT_URL", default: transportURL, meaning: "the stationboard upstream (`/stationboard?…` is appended)")
            source.ttlToday = try reader.seconds("PIER_STATIONBOARD_TTL_TODAY_S", default: source.ttlToday, meaning: "today's board (Zurich date) is fresh this long — real-time delays change — then the upstream is asked again")
            source.ttl = try reader.seconds("PIER_STATIONBOARD_TTL_S", default: source.ttl, meaning: "another date's board is fresh this long; also how long an unknown station's `404` is remembered")
            upstream = try reader.upstream(
                "PIER_TRANSPORT", perSecond: false, rate: "sustained requests to transport.opendata.ch per process (token bucket); `0` = never ask (stored answers only)", of: "boards", default: upstream)
            engine.cacheBytes = try reader.megabytes("PIER_STATIONBOARD_CACHE_MB", default: engine.cacheBytes, meaning: "bytes of stationboard answers kept in memory (upstream bytes and the rendered answer; the least recently used leave first)")
        }
    }

    public let engine: Engine

    /// - Parameter courses: which ship runs which course (the ships feature's ``ShipService/courses``).
    public init(settings: Settings, context: FeatureContext, courses: @escaping @Sendable () -> CourseIndex) {
        // Asked on demand, not on a schedule: idle until first asked, stale when no answer came for a day.
        context.board.register(Self.source, staleAfter: .seconds(86_400), onDemand: true)
        engine = OnDemand(
            kind: Self.source,
            source: StationboardSource(
                client: TransportClient(baseURL: settings.transportURL, client: context.upstream), store: SharedAnswerStore(pool: context.pool),
                courses: courses, settings: settings.source),
            upstream: context.onDemandUpstream("transport.opendata.ch", metric: "transport", settings: settings.upstream),
            report: UpstreamReport(source: Self.source, board: context.board), settings: settings.engine, runner: context.runner,
            metrics: context.metrics)
    }

    public func load() async throws { try await engine.load() }

    /// `GET /v1/stationboard?id=…&date=…&limit=…` (also `datetime=`, `transportations[]=`, `type=`):
    /// transport.opendata.ch's stationboard with `shipName` on every journey; `404` for an unknown station.
    public func register(in router: inout Router) {
        // The engine, not a copy of its source: a source captured by value was copied into every request's closure.
        router.onDemand(Self.path, engine) { [engine] request, now in
            try StationboardQuery(request, today: { engine.core.source.today(now) })
        }
    }

    public static let path = "/v1/stationboard"

    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        source == Self.source ? engine.health() : nil
    }

    public var replay: [any ReplayMatcher] { [TransportReplay()] }

    /// transport.opendata.ch's stationboard, as `pier bench-parse` times it.
    public static var parsers: [ParseBenchmark] {
        [ParseBenchmark("transport", unit: "journeys", folder: "Tests/Fixtures/transport", prefix: "stationboard-", suffix: ".json", iterations: 200) {
            try StationboardDocument(parsing: $0).journeys.count
        }]
    }
}
