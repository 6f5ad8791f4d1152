import Foundation
import LakesFormat
import MeteoNewsFormat
import Parsing

/// The body of `GET /api/water-temp` (contract: docs/api.md).
public struct LakesResponse: Codable, Sendable, Equatable {
    public struct Debug: Codable, Sendable, Equatable {
        /// Swiss wall-clock time of the scrape (`23.11.2026, 04:00:02`).
        public var currentSwissTime: String
        public var lakesCount: Int
        /// True when the data is older than the fetch schedule allows.
        public var stale: Bool
    }

    public var lakes: [LakeReading]
    public var lastUpdated: String
    public var debug: Debug

    init(snapshot: LakeSnapshot, now: Date, timeZone: TimeZone, staleAfter: Duration) {
        lakes = LakeNames.withAppNames(snapshot.readings)
        lastUpdated = Timestamp.javaScript(snapshot.scrapedAt)
        debug = Debug(
            currentSwissTime: Timestamp.swissLocal(snapshot.scrapedAt, timeZone: timeZone),
            lakesCount: lakes.count, stale: now.timeIntervalSince(snapshot.scrapedAt) > staleAfter.seconds)
    }
}
