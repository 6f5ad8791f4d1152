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
            url = try reader.url("PIER_WIKIPEDIA_URL", default: url)
            contact = reader.string("PIER_CONTACT")
            service.summaryTTL = try reader.hours("PIER_WIKIPEDIA_SUMMARY_TTL_H", default: service.summaryTTL)
            service.missingTTL = try reader.hours("PIER_WIKIPEDIA_MISSING_TTL_H", default: service.missingTTL)
            service.searchTTL = try reader.hours("PIER_WIKIPEDIA_SEARCH_TTL_H", default: service.searchTTL)
            service.retention = try reader.days("PIER_WIKIPEDIA_RETENTION_D", default: service.retention)
            service.upstream = try reader.upstream(
                "PIER_WIKIPEDIA", perSecond: true, perDay: "PIER_WIKIPEDIA_REQUESTS_PER_DAY", default: service.upstream)
            service.maxRows = try reader.int("PIER_WIKIPEDIA_MAX_ROWS", default: service.maxRows, in: 100...100_000_000)
            service.cacheBytes = try reader.megabytes("PIER_WIKIPEDIA_CACHE_MB", default: service.cacheBytes)
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
