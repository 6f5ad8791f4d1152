import Foundation
import Parsing
import ShipsFormat

/// The body of `GET /api/ships` (contract: docs/api.md). Keys are the shipped client's.
public struct ShipsResponse: Codable, Sendable, Equatable {
    public struct DailyDeployment: Codable, Sendable, Equatable {
        public var date: String
        public var routes: [ShipRoute]
    }

    public struct Debug: Codable, Sendable, Equatable {
        public var daysProcessed: Int
        public var firstDay: String
        public var lastDay: String
        /// True when the newest data is older than the fetch schedule allows.
        public var stale: Bool
    }

    public var dailyDeployments: [DailyDeployment]
    public var lastUpdated: String
    public var debug: Debug

    /// The response for `days` (at least one, sorted), or `nil` when there is nothing to serve.
    init?(days: [ShipDay], now: Date, staleAfter: Duration) {
        guard let first = days.first, let last = days.last,
            let oldest = days.map(\.scrapedAt).min()
        else { return nil }
        dailyDeployments = days.map { DailyDeployment(date: $0.date.description, routes: $0.routes) }
        lastUpdated = Timestamp.javaScript(oldest)
        debug = Debug(
            daysProcessed: days.count, firstDay: first.date.description, lastDay: last.date.description,
            stale: now.timeIntervalSince(oldest) > staleAfter.seconds)
    }
}
