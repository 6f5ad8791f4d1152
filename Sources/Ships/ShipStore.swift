import Foundation
import Parsing
import Postgres
import ShipsFormat

/// `ship_days` and `ship_deployments`: a day is replaced as a whole, all days of a scrape in one transaction.
public struct ShipStore: Sendable {
    /// Days older than this many days before today are deleted when new days are stored.
    public static let retainedPastDays = 7

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Replaces the given days (and only those) atomically.
    public func replace(_ days: [ShipDay], today: CalendarDate) async throws {
        try await pool.transaction { connection in
            for day in days {
                let date = day.date.description
                _ = try connection.execute("DELETE FROM ship_days WHERE service_date = $1::date", [date])
                _ = try connection.execute(
                    "INSERT INTO ship_days (service_date, scraped_at, route_count) VALUES ($1::date, $2, $3)",
                    [date, day.scrapedAt, day.routes.count])
                try connection.insert(
                    "INSERT INTO ship_deployments (service_date, position, ship_name, course_number) VALUES",
                    row: "($1::date, $2, $3, $4)",
                    rows: day.routes.enumerated().map { [date, $0.offset, $0.element.shipName, $0.element.courseNumber] })
            }
            _ = try connection.execute(
                "DELETE FROM ship_days WHERE service_date < $1::date",
                [today.adding(days: -Self.retainedPastDays).description])
        }
    }

    /// Every stored day from `first` on, routes in page order.
    public func days(from first: CalendarDate) async throws -> [ShipDay] {
        let rows = try await pool.query(
            """
            SELECT d.service_date::text AS date, d.scraped_at, p.ship_name, p.course_number
            FROM ship_days d LEFT JOIN ship_deployments p ON p.service_date = d.service_date
            WHERE d.service_date >= $1::date
            ORDER BY d.service_date, p.position
            """, [first.description])
        var days: [ShipDay] = []
        for row in rows {
            let text = try row.decode(String.self, "date")
            guard let date = CalendarDate(text) else {
                throw PostgresError.decoding(column: "date", expected: "YYYY-MM-DD", value: text)
            }
            if days.last?.date != date {
                days.append(ShipDay(date: date, routes: [], scrapedAt: try row.decode(Date.self, "scraped_at")))
            }
            if let name = try row.decode(String?.self, "ship_name"), let course = try row.decode(String?.self, "course_number") {
                days[days.count - 1].routes.append(ShipRoute(shipName: name, courseNumber: course))
            }
        }
        return days
    }

    /// Stored route counts by date from `first` on (for drift detection).
    public func routeCounts(from first: CalendarDate) async throws -> [CalendarDate: Int] {
        let rows = try await pool.query(
            "SELECT service_date::text AS date, route_count FROM ship_days WHERE service_date >= $1::date", [first.description])
        var counts: [CalendarDate: Int] = [:]
        for row in rows {
            if let date = CalendarDate(try row.decode(String.self, "date")) { counts[date] = try row.decode(Int.self, "route_count") }
        }
        return counts
    }
}
