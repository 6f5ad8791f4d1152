import Foundation
import Parsing
import ShipsFormat

/// One Zurich service date's routes, as stored and served.
public struct ShipDay: Sendable, Equatable {
    public var date: CalendarDate
    public var routes: [ShipRoute]
    /// When this day's page was scraped.
    public var scrapedAt: Date

    public init(date: CalendarDate, routes: [ShipRoute], scrapedAt: Date) {
        self.date = date
        self.routes = routes
        self.scrapedAt = scrapedAt
    }
}
