import Feature
import HTTPServer
import Logging
import ReplayMatching
import Settings
import SharedAnswers

/// The Smart City Guide app's Wikipedia enrichment: page summaries and title searches on demand, kept for
/// everyone (`/v1/wikipedia/{lang}/summary/{title}`, `/v1/wikipedia/{lang}/opensearch`; source `wikipedia`).
/// Wikipedia needs no key; it asks for a descriptive `User-Agent` with a contact, from `PIER_CONTACT`.
public struct WikipediaFeature: Feature {
    public typealias Service = WikipediaService

    public var name: String { Service.source }

    public struct Settings: Sendable {
        /// `PIER_WIKIPEDIA_URL`: a base with `{lang}`.
        public var url = WikipediaClient.defaultURL
        /// `PIER_CONTACT`: a URL or an e-mail address for Wikimedia's operators.
        public var contact: String?
        public var service = Service.Settings()

        public init() {}

        public init(_ reader: SettingsReader) throws {
            url = try reader.url("PIER_WIKIPEDIA_URL", default: url, meaning: "Wikipedia's base with `{lang}` replaced by the language (`/api/rest_v1/page/summary/{title}` or `/w/api.php?action=opensearch…` is appended)")
            contact = reader.string("PIER_CONTACT", meaning: "a URL or e-mail address Pier puts in its `User-Agent` to upstreams that ask for one: `Pier/0.1.0 (<PIER_CONTACT>)` to Wikipedia, as Wikimedia's User-Agent policy requires (\"or they may be blocked without notice\"), and to MET Norway, whose terms require contact information (without it MET answers `403`, and Pier stops asking for an hour); unset: `Pier/0.1.0` only. Set it in production")
            service.summaryTTL = try reader.hours("PIER_WIKIPEDIA_SUMMARY_TTL_H", default: service.summaryTTL, meaning: "a summary is fresh this long")
            service.missingTTL = try reader.hours("PIER_WIKIPEDIA_MISSING_TTL_H", default: service.missingTTL, meaning: "a title Wikipedia does not have is remembered (`404`) this long")
            service.searchTTL = try reader.hours("PIER_WIKIPEDIA_SEARCH_TTL_H", default: service.searchTTL, meaning: "an `opensearch` answer is fresh this long")
            service.retention = try reader.days("PIER_WIKIPEDIA_RETENTION_D", default: service.retention, meaning: "Wikipedia answers are deleted from PostgreSQL this many days after they expire")
            service.upstream = try reader.upstream(
                "PIER_WIKIPEDIA", perSecond: true, rate: "sustained Wikipedia calls per process, summaries and searches together (politeness: divide by the number of replicas)", of: "pages",
                perDay: ("PIER_WIKIPEDIA_REQUESTS_PER_DAY", "Wikipedia calls per UTC day, counted in PostgreSQL across replicas: Wikipedia sets no quota, but a day's budget split in fair shares keeps one client from spending the rate all day and bounds the rows a day adds; `0` = never call"), default: service.upstream)
            service.maxRows = try reader.int("PIER_WIKIPEDIA_MAX_ROWS", default: service.maxRows, in: 100...100_000_000, meaning: "the most Wikipedia answers of each kind (summaries, searches) kept in PostgreSQL; beyond it those that expire first are deleted (with the retention, every ten minutes). Places and geocoding keep at most 200,000 each too")
            service.cacheBytes = try reader.megabytes("PIER_WIKIPEDIA_CACHE_MB", default: service.cacheBytes, meaning: "bytes of Wikipedia answers in memory (three quarters for summaries, a quarter for searches)")
        }
    }

    /// Cached drop-ins for the app's two Wikipedia calls: `…/summary/{title}` for
    /// `https://{lang}.wikipedia.org/api/rest_v1/page/summary/{title}` and `…/opensearch` for
    /// `…/w/api.php?action=opensearch…` — Wikipedia's JSON unchanged.
    public static let summaryPath = "/v1/wikipedia/{lang}/summary/{title}"
    public static let searchPath = "/v1/wikipedia/{lang}/opensearch"

    public let service: Service
    public let client: WikipediaClient
    private let contact: String?

    public init(settings: Settings, context: FeatureContext) {
        context.board.register(Service.source, staleAfter: .seconds(86_400), onDemand: true)
        contact = settings.contact
        client = WikipediaClient(
            baseURL: settings.url, client: context.upstream, product: context.product, contact: settings.contact,
            ttl: (settings.service.summaryTTL, settings.service.missingTTL, settings.service.searchTTL))
        service = Service(
            client: client, store: SharedAnswerStore(pool: context.pool),
            upstream: context.onDemandUpstream("Wikipedia", metric: "wikipedia", settings: settings.service.upstream), settings: settings.service,
            board: context.board, runner: context.runner, metrics: context.metrics)
    }

    public func load() async throws {
        if contact?.isEmpty ?? true {
            Logger(label: "pier.wikipedia").warning(
                "PIER_CONTACT is not set: Wikimedia asks every client for a User-Agent with contact information and may block those without",
                metadata: ["user_agent": "\(client.userAgent)"])
        }
        try await service.load()
    }

    public func register(in router: inout Router) {
        router.onDemand(Self.summaryPath, service.summaries) { request, _ in
            try request.withParameter("title") { try SummaryKey(lang: request.parameter("lang"), title: $0) }
        }
        router.onDemand(Self.searchPath, service.searches) { request, _ in
            try OpenSearchKey(lang: request.parameter("lang"), query: request.query)
        }
    }

    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        source == Service.source ? service.health() : nil
    }

    public var replay: [any ReplayMatcher] { [WikipediaReplay()] }
}
