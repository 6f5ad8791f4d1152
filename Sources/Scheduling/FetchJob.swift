
/// One upstream source the fetcher keeps fresh: its name in `fetch_runs`, its schedule and its work.
public struct FetchJob: Sendable {
    /// The name in `fetch_runs.source`, `/health` and metrics (`ships`, `lakes`).
    public var source: String
    public var schedule: FetchSchedule
    public var retry: RetryPolicy
    /// A run that takes longer is cancelled and recorded as failed.
    public var timeout: Duration
    /// Scrapes, checks and stores; throws ``FetchError`` (or any error) when nothing was stored.
    public var work: @Sendable () async throws -> FetchSummary

    public init(
        source: String, schedule: FetchSchedule, retry: RetryPolicy, timeout: Duration,
        work: @escaping @Sendable () async throws -> FetchSummary
    ) {
        self.source = source
        self.schedule = schedule
        self.retry = retry
        self.timeout = timeout
        self.work = work
    }
}
