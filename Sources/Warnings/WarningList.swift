import Foundation

/// The warnings at one point in one language, encoded: what `/v1/warnings` and `/v1/weather` put in their bodies.
public struct WarningList: Sendable, Equatable {
    /// `[{…},{…}]`, most severe first.
    public var json: String
    public var count: Int
    /// The earliest expiry among them: past it, the list must be looked up again (never serve a warning past it).
    public var until: Date
    /// The warnings' generation it was looked up in (``WarningsService/generation``).
    public var generation: Int

    public init(json: String, count: Int, until: Date, generation: Int) {
        self.json = json
        self.count = count
        self.until = until
        self.generation = generation
    }
}
