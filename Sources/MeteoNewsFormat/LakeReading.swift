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

    private enum CodingKeys: String, CodingKey {
        case name, temperature, waterLevel
    }

    /// Missing values are written as `null`, as the contract shows, rather than left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(temperature, forKey: .temperature)
        try container.encode(waterLevel, forKey: .waterLevel)
    }
}
