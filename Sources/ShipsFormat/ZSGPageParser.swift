import Foundation
import Markup

/// Reads ZSG's "Einsatz der Schiffe" fragment for one day into routes, in document order.
///
/// Rules (`Tests/Fixtures/zsg/README.md`): a ship is any element with class token `ship`; its name is the
/// text of the first `.title` in its first `.legend`, whitespace collapsed and cut before `Kurs`; each
/// `.disposition` contributes the last `<span>` child of its first `.cruise`, or the `.cruise`'s own text when
/// it has no span (the site has used both shapes). Dispositions without a course are skipped.
public enum ZSGPageParser {
    /// What one day's page holds.
    public struct Day: Sendable, Equatable {
        /// Named ships on the page, with or without courses (for drift detection).
        public var shipCount: Int
        public var routes: [ShipRoute]
    }

    /// Parses one day's page into its routes. An empty body is a day without ships, not an error.
    public static func parse(_ bytes: [UInt8]) throws(MarkupError) -> [ShipRoute] {
        try read(bytes).routes
    }

    /// Parses one day's page into its routes and ship count.
    public static func read(_ bytes: [UInt8]) throws(MarkupError) -> Day {
        let document: MarkupDocument
        do {
            document = try MarkupDocument.html(bytes)
        } catch .empty {
            return Day(shipCount: 0, routes: [])
        }
        var day = Day(shipCount: 0, routes: [])
        // Class lookups walk the tree natively (a few times faster than the same XPath per ship).
        for ship in document.root?.descendants(withClass: "ship") ?? [] {
            guard let title = ship.firstDescendant(withClass: "legend")?.firstDescendant(withClass: "title") else { continue }
            let name = shipName(title.text)
            guard !name.isEmpty else { continue }
            day.shipCount += 1
            for disposition in ship.descendants(withClass: "disposition") {
                guard let course = courseNumber(in: disposition), !course.isEmpty else { continue }
                day.routes.append(ShipRoute(shipName: name, courseNumber: course))
            }
        }
        return day
    }

    /// `MS Linth Kurs 105, 106` → `MS Linth`. Expects normalised text.
    static func shipName(_ text: String) -> String {
        guard let kurs = text.range(of: "Kurs") else { return text }
        return MarkupText.normalize(String(text[..<kurs.lowerBound]))
    }

    private static func courseNumber(in disposition: MarkupNode) -> String? {
        guard let cruise = disposition.firstDescendant(withClass: "cruise") else { return nil }
        if let span = cruise.children.last(where: { $0.name == "span" }) { return span.text }
        return cruise.text
    }
}
