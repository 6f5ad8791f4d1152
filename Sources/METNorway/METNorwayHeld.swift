import Foundation
import METNorwayFormat

/// MET Norway's forecast for a point as Pier keeps it: MET's steps, when they were fetched, until when MET asks not
/// to be asked again (`Expires`), and the `Last-Modified` to send back.
public struct METNorwayHeld: Sendable, Equatable {
    public var forecast: METNorwayForecast
    public var fetchedAt: Date
    public var expires: Date
    public var lastModified: String?

    public init(forecast: METNorwayForecast, fetchedAt: Date, expires: Date, lastModified: String?) {
        self.forecast = forecast
        self.fetchedAt = fetchedAt
        self.expires = expires
        self.lastModified = lastModified
    }

    /// Bytes it takes in memory (roughly).
    var byteCount: Int { forecast.steps.count * 96 + (lastModified?.utf8.count ?? 0) + 64 }
}
