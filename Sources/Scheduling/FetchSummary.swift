import Foundation

/// What a successful run stored.
public struct FetchSummary: Sendable, Equatable {
    /// Rows stored (routes for ships, readings for lakes), recorded in `fetch_runs.item_count`.
    public var itemCount: Int
    /// When the stored data was scraped.
    public var scrapedAt: Date

    public init(itemCount: Int, scrapedAt: Date) {
        self.itemCount = itemCount
        self.scrapedAt = scrapedAt
    }
}
