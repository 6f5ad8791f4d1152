
/// How a fetch run ended, as stored in `fetch_runs.outcome`.
public enum FetchOutcome: String, Sendable, CaseIterable {
    /// Scraped, checked and stored.
    case ok
    /// The upstream or the database failed; nothing was replaced.
    case failed
    /// The scrape succeeded but looked wrong (drift); nothing was replaced.
    case suspect
}
