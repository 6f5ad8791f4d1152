import HTTPServer
import Identity
import Metrics
import Postgres
import Scheduling
import UpstreamHTTP

/// What every feature shares, made once by the executable: infrastructure, never domain.
public struct FeatureContext: Sendable {
    public let pool: PostgresPool
    /// The HTTP client for upstreams (timeouts, size cap; in replay and demo it answers from recordings).
    public let upstream: UpstreamClient
    /// Where features register their sources (``SourceStatusBoard/register(_:staleAfter:onDemand:)``) and
    /// on-demand ones record their upstream calls.
    public let board: SourceStatusBoard
    /// Runs jobs with bookkeeping, single-flight and capture (a refresh route runs its job through it).
    public let runner: FetchRunner
    public let metrics: MetricsRegistry?
    /// How a scheduled job retries after a failure, and how long a run may take.
    public let retry: RetryPolicy
    public let runTimeout: Duration
    /// `Cache-Control: max-age` for answers that change only when a fetch lands.
    public let cacheMaxAge: Int
    /// The upstreams are recordings on loopback (`--demo`, `--replay`): no one to be polite to, so request
    /// budgets are lifted — a demo explores many points and boards from one client.
    public let upstreamsAreRecordings: Bool
    /// `Pier/<version>`: how Pier names itself to upstreams that ask for a descriptive `User-Agent`.
    public let product: String
    /// Who a request counts as when it would spend (the identity chain; the executable completes it with the features'
    /// links before serving).
    public let spenders: Spenders
    /// The database's notices of changed rows, by topic (``ChangeNotices``): a feature subscribes to its own.
    public let notices: ChangeNotices

    public init(
        pool: PostgresPool, upstream: UpstreamClient, board: SourceStatusBoard, runner: FetchRunner, metrics: MetricsRegistry?,
        retry: RetryPolicy, runTimeout: Duration, cacheMaxAge: Int, upstreamsAreRecordings: Bool,
        product: String = "Pier", spenders: Spenders = Spenders(), notices: ChangeNotices = ChangeNotices()
    ) {
        self.pool = pool
        self.upstream = upstream
        self.board = board
        self.runner = runner
        self.metrics = metrics
        self.retry = retry
        self.runTimeout = runTimeout
        self.cacheMaxAge = cacheMaxAge
        self.upstreamsAreRecordings = upstreamsAreRecordings
        self.product = product
        self.spenders = spenders
        self.notices = notices
    }
}
