/// One JSON object made of the members of several values, in order — a `/health` source's status, then what its
/// feature adds. Each part must encode a keyed container (``OrderedJSONEncoder`` adds them to one object).
public struct MergedObject: Encodable, Sendable {
    public var parts: [any Encodable & Sendable]

    public init(_ parts: [(any Encodable & Sendable)?]) {
        self.parts = parts.compactMap { $0 }
    }

    public func encode(to encoder: any Encoder) throws {
        // An object even with no parts (`{}`).
        _ = encoder.container(keyedBy: NoKey.self)
        for part in parts { try part.encode(to: encoder) }
    }

    private enum NoKey: CodingKey {}
}
