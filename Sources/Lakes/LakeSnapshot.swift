import Foundation
import LakesFormat
import MeteoNewsFormat

/// The lake readings served: one table scraped at one time.
public struct LakeSnapshot: Sendable, Equatable {
    public var readings: [LakeReading]
    public var scrapedAt: Date

    public init(readings: [LakeReading], scrapedAt: Date) {
        self.readings = readings
        self.scrapedAt = scrapedAt
    }
}
