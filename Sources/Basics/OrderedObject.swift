/// A JSON object whose member names are data (lakes by key, sources by name), written in the order given: encoded by
/// ``OrderedJSONEncoder`` in that order.
public struct OrderedObject<Value: Encodable & Sendable>: Encodable, Sendable {
    public var members: [(name: String, value: Value)]

    public init(_ members: [(name: String, value: Value)]) {
        self.members = members
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        for member in members { try container.encode(member.value, forKey: Name(member.name)) }
    }

    /// A member's name as a coding key.
    struct Name: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
