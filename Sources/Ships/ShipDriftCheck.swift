import Parsing
import ShipsFormat

/// Decides whether a week of ZSG pages looks like the real thing before it may replace stored data.
///
/// Each rule catches a failure seen in the wild or expected from the site's history: a changed layout (pages
/// full of markup but no ships), a date parameter the site ignores (every day identical), an outage page
/// (no routes anywhere), a partial answer (far fewer routes than the same days had before).
public enum ShipDriftCheck {
    /// A page at least this large is a real day page; zero ships on it means the layout changed.
    public static let largePageBytes = 4096
    /// A new scrape with fewer than this fraction of the stored routes for the same dates is suspect.
    public static let minimumRetainedFraction = 0.5

    /// One parsed day.
    public struct Day: Sendable {
        public var date: CalendarDate
        public var bodyBytes: [UInt8]
        public var shipCount: Int
        public var routes: [ShipRoute]

        public init(date: CalendarDate, bodyBytes: [UInt8], shipCount: Int, routes: [ShipRoute]) {
            self.date = date
            self.bodyBytes = bodyBytes
            self.shipCount = shipCount
            self.routes = routes
        }
    }

    /// The reason the scrape is suspect, or `nil` when it may be stored.
    /// - Parameter previous: stored route counts by date, for the dates this scrape covers.
    public static func problem(with days: [Day], previous: [CalendarDate: Int]) -> String? {
        guard !days.isEmpty else { return "no days were scraped" }
        if let empty = days.first(where: { $0.shipCount == 0 && $0.bodyBytes.count >= largePageBytes }) {
            return "\(empty.date) has a \(empty.bodyBytes.count)-byte page but no ships: the page layout may have changed"
        }
        let total = days.reduce(0) { $0 + $1.routes.count }
        guard total > 0 else { return "no day has any route" }
        if days.count > 1, days.dropFirst().allSatisfy({ $0.bodyBytes == days[0].bodyBytes }) {
            return "all \(days.count) days returned byte-identical pages: the date selection is being ignored"
        }
        let covered = days.filter { previous[$0.date] != nil }
        let before = covered.reduce(0) { $0 + (previous[$1.date] ?? 0) }
        let now = covered.reduce(0) { $0 + $1.routes.count }
        if before >= 10, Double(now) < Double(before) * minimumRetainedFraction {
            return "only \(now) routes for dates that had \(before): fewer than half"
        }
        return nil
    }
}
