/// One lake's row of the MeteoNews table, as the contract spells it.
public struct LakeReading: Codable, Sendable, Equatable {
    /// The lake's name as the app knows it (`Zürichsee`, `Vierwaldstättersee`).
    public var name: String
    /// Water temperature in °C, `nil` when the table shows none.
    public var temperature: Double?
    /// The level text as shown (`405.96 m.ü.M.`), `nil` when the table shows none.
    public var waterLevel: String?

    public init(name: String, temperature: Double?, waterLevel: String?) {
        self.name = name
        self.temperature = temperature
        self.waterLevel = waterLevel
    }
}
