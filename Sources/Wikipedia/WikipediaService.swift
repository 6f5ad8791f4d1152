import Feature
import Fetching
import Basics
import Foundation
import Metrics

/// Wikipedia's page summaries and title searches for everyone: ``SharedAnswers`` for each (memory, PostgreSQL,
/// Wikipedia) behind one gate — at most ``Settings/budget`` requests a second to Wikimedia from this process,
/// each client a share — and one `/health` source, `wikipedia`.
public final class WikipediaService<Prepared: Sendable>: Sendable {
    public struct Settings: Sendable {
        /// `PIER_WIKIPEDIA_SUMMARY_TTL_H`.
        public var summaryTTL: Duration = .seconds(7 * 86_400)
        /// `PIER_WIKIPEDIA_MISSING_TTL_H`: how long "no such page" is remembered.
        public var missingTTL: Duration = .seconds(86_400)
        /// `PIER_WIKIPEDIA_SEARCH_TTL_H`.
        public var searchTTL: Duration = .seconds(86_400)
        /// `PIER_WIKIPEDIA_REQUESTS_PER_SECOND`, `…_BURST`, `…_CLIENT_SHARE`: politeness, not a quota. A client
        /// may take 60 % (3 a second): the app enriches a new city's places 5 to 10 a second, and the rest of
        /// the rate stays for everyone else.
        public var budget = RequestBudget<IPAddress>.Settings(ratePerMinute: 5 * 60, burst: 5, clientShare: 0.6)
        /// `PIER_WIKIPEDIA_CACHE_MB`.
        public var cacheBytes = 32 << 20
        /// `PIER_WIKIPEDIA_RETENTION_D`: how long answers stay in PostgreSQL after they expire.
        public var retention: Duration = .seconds(30 * 86_400)

        public init() {}
    }

    public static var source: String { "wikipedia" }

    public let settings: Settings
    public let summaries: SharedAnswers<SummaryKey, Prepared>
    public let searches: SharedAnswers<OpenSearchKey, Prepared>
    private let gate: SharedAnswerGate
    private let report: UpstreamReport

    public init(
        client: WikipediaClient, store: SharedAnswerStore, settings: Settings = Settings(), board: SourceStatusBoard? = nil,
        runner: FetchRunner? = nil, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 },
        metrics: MetricsRegistry? = nil, prepareSummary: @escaping @Sendable (SharedAnswer) -> Prepared,
        prepareSearch: @escaping @Sendable (SharedAnswer) -> Prepared
    ) {
        self.settings = settings
        gate = SharedAnswerGate(budget: settings.budget, clock: clock)
        report = UpstreamReport(source: Self.source, board: board)
        var answerSettings = SharedAnswerSettings()
        answerSettings.retention = settings.retention
        answerSettings.cacheBytes = settings.cacheBytes * 3 / 4
        summaries = SharedAnswers(
            kind: "wikipedia-summary", upstream: "Wikipedia", gate: gate, quota: nil, store: store, report: report, settings: answerSettings,
            runner: runner, metrics: metrics, fetcher: { try await client.summary($0) }, render: prepareSummary)
        answerSettings.cacheBytes = settings.cacheBytes / 4
        searches = SharedAnswers(
            kind: "wikipedia-opensearch", upstream: "Wikipedia", gate: gate, quota: nil, store: store, report: report, settings: answerSettings,
            runner: runner, metrics: metrics, fetcher: { try await client.openSearch($0) }, render: prepareSearch)
    }

    public func load() async throws {
        try await summaries.load()
        try await searches.load()
    }

    /// Members of the `wikipedia` source's `/health` object: `cache` for the summaries, `search_cache` for the searches.
    public func healthJSON() -> String {
        report.healthMembers(gate: gate) + ",\"cache\":\(summaries.cacheJSON),\"search_cache\":\(searches.cacheJSON)"
    }
}
