/// One course run by one ship on one day, as the contract spells it.
public struct ShipRoute: Codable, Sendable, Equatable, Hashable {
    /// The ship's name as ZSG shows it, type prefix included (`MS Panta Rhei`).
    public var shipName: String
    /// The course number as shown (leading zeros kept; the client strips them).
    public var courseNumber: String

    public init(shipName: String, courseNumber: String) {
        self.shipName = shipName
        self.courseNumber = courseNumber
    }
}
