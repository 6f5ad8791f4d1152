import Basics
import Feature
import Foundation
import Limits
import Metrics
import OnDemand
import Parsing
import Scheduling
import SharedAnswers

/// Wikipedia's page summaries and title searches for everyone: an ``OnDemand`` engine for each on one polite
/// upstream — at most ``Settings/upstream`` requests a second to Wikimedia from this process, each client a
/// share — and one `/health` source, `wikipedia`.
public final class WikipediaService: Sendable {
    public struct Settings: Sendable {
        /// `PIER_WIKIPEDIA_SUMMARY_TTL_H`.
        public var summaryTTL: Duration = .seconds(7 * 86_400)
        /// `PIER_WIKIPEDIA_MISSING_TTL_H`: how long "no such page" is remembered.
        public var missingTTL: Duration = .seconds(86_400)
        /// `PIER_WIKIPEDIA_SEARCH_TTL_H`.
        public var searchTTL: Duration = .seconds(86_400)
        /// `PIER_WIKIPEDIA_REQUESTS_PER_SECOND`, `…_BURST`, `…_CLIENT_SHARE`: politeness, not a quota. A client
        /// may take 60 % (3 a second): the app enriches a new city's places 5 to 10 a second, and the rest of
        /// the rate stays for everyone else. `PIER_WIKIPEDIA_REQUESTS_PER_DAY` (20,000): Wikipedia sets no quota,
        /// but a day's budget split in fair shares keeps one client from spending the rate all day, and bounds the
        /// rows a day adds (each call stores at most one).
        public var upstream = OnDemandUpstream.Settings(
            budget: BudgetSettings(ratePerMinute: 5 * 60, burst: 5, clientShare: 0.6), perDay: 20_000)
        /// `PIER_WIKIPEDIA_MAX_ROWS`: the most answers of each kind (summaries, searches) kept in PostgreSQL.
        public var maxRows = 200_000
        /// `PIER_WIKIPEDIA_CACHE_MB`: three quarters for summaries, a quarter for searches.
        public var cacheBytes = 32 << 20
        /// `PIER_WIKIPEDIA_RETENTION_D`: how long answers stay in PostgreSQL after they expire.
        public var retention: Duration = .seconds(30 * 86_400)

        public init() {}
    }

    public static var source: String { "wikipedia" }

    public let settings: Settings
    public let summaries: OnDemand<SharedAnswerSource<SummaryKey>>
    public let searches: OnDemand<SharedAnswerSource<OpenSearchKey>>

    public init(
        client: WikipediaClient, store: SharedAnswerStore, upstream: OnDemandUpstream, settings: Settings = Settings(), board: SourceStatusBoard? = nil,
        runner: FetchRunner? = nil, metrics: MetricsRegistry? = nil
    ) {
        self.settings = settings
        let report = UpstreamReport(source: Self.source, board: board)
        summaries = OnDemand(
            kind: "wikipedia-summary",
            source: SharedAnswerSource(
                kind: "wikipedia-summary", store: store, retention: settings.retention, maxRows: settings.maxRows, fetch: { try await client.summary($0) }, render: Self.renderSummary),
            upstream: upstream, report: report, settings: OnDemandSettings(cacheBytes: settings.cacheBytes * 3 / 4), runner: runner, metrics: metrics)
        searches = OnDemand(
            kind: "wikipedia-opensearch",
            source: SharedAnswerSource(kind: "wikipedia-opensearch", store: store, retention: settings.retention, maxRows: settings.maxRows, fetch: { try await client.openSearch($0) }),
            upstream: upstream, report: report, settings: OnDemandSettings(cacheBytes: settings.cacheBytes / 4), runner: runner, metrics: metrics)
    }

    /// A summary as Wikipedia wrote it; a title it does not have is `404` — Pier's `{"error": …}` with
    /// Wikipedia's problem `type` kept (clients test it) — remembered a day.
    @Sendable static func renderSummary(_ answer: StoredAnswer) -> OnDemandRendering {
        guard answer.outcome == .missing else { return .document(answer.body) }
        let type = (try? JSONScanner.parse(answer.body))?["type"]?.string ?? "https://mediawiki.org/wiki/HyperSwitch/errors/not_found"
        return .missing("Wikipedia has no page with this title", members: [("type", type)])
    }

    public func load() async throws {
        try await summaries.load()
        try await searches.load()
    }

    /// Members of the `wikipedia` source's `/health` object: `cache` for the summaries, `search_cache` for the searches.
    public func health() -> MergedObject {
        MergedObject([summaries.health(), SearchCache(cache: searches.cacheHealth)])
    }

    /// What memory holds of title searches (`search_cache`).
    struct SearchCache: Encodable, Sendable {
        let cache: MergedObject

        enum CodingKeys: String, CodingKey {
            case cache = "search_cache"
        }
    }
}
