import Foundation
import Parsing

/// Which ship sails which course on which date, for joining other data (a stationboard's journeys) with
/// the ship deployments. Course numbers are compared without their leading zeros (ZSG writes `0101`,
/// transport.opendata.ch `000101`), as the apps do.
public struct CourseIndex: Sendable {
    /// Changes whenever the ship data does (a scrape, a reload); answers built from an older generation
    /// are out of date.
    public let generation: Int
    private let ships: [CalendarDate: [String: String]]

    public init(days: [ShipDay] = [], generation: Int = 0) {
        self.generation = generation
        var ships: [CalendarDate: [String: String]] = [:]
        for day in days {
            var byCourse: [String: String] = [:]
            // The first deployment listed for a course wins, as on ZSG's page.
            for route in day.routes where byCourse[Self.normalised(route.courseNumber)] == nil {
                byCourse[Self.normalised(route.courseNumber)] = route.shipName
            }
            ships[day.date] = byCourse
        }
        self.ships = ships
    }

    /// The ship on `course` on `date`, or `nil` (no ship data for the date, or the course is not listed).
    public func ship(course: String, on date: CalendarDate) -> String? {
        ships[date]?[Self.normalised(course)]
    }

    /// `000101` and `0101` → `101`; all zeros → `0`; surrounding spaces ignored.
    public static func normalised(_ course: String) -> String {
        let trimmed = course.trimmingCharacters(in: .whitespaces)
        let stripped = trimmed.drop { $0 == "0" }
        return stripped.isEmpty ? (trimmed.isEmpty ? "" : "0") : String(stripped)
    }
}
