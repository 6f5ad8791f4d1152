/// Encodes an `Encodable` value as JSON with its members in the order they were encoded — `/health` and other
/// documents operators read keep their fields where they always were (Foundation's `JSONEncoder` orders them by hash
/// or by name). Its rules, written once:
/// - an optional encoded with `encodeIfPresent` (what synthesized conformances do) writes `null` when absent: a field
///   of these documents is always there, `null` when unknown (leave a member out by not encoding it);
/// - a whole `Double` below 10^15 is written without a fraction (`50`, not `50.0`), any other finite one as Swift
///   writes it (`0.25`), a non-finite one as `null`; a ``FixedDecimal`` with its decimals (`0.500`);
/// - strings are escaped by ``JSONString/quote(_:)``; `/` is not escaped;
/// - a value that asks its encoder for a keyed container twice (one `encode(to:)` calling another's on the same
///   encoder) adds to one object: members of several values merge, in order.
public enum OrderedJSONEncoder {
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        Array(try string(value).utf8)
    }

    public static func string(_ value: some Encodable) throws -> String {
        let root = Node()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        var text = ""
        root.write(to: &text)
        return text
    }

    /// What a value wrote, filled in as containers are asked for and written to.
    final class Node {
        enum Kind {
            case unset, null, bool(Bool), number(String), string(String), array, object
        }

        var kind = Kind.unset
        var members: [(key: String, node: Node)] = []
        var elements: [Node] = []

        /// A new node for member `key` (replacing the one written before under the same key, where it was).
        func member(_ key: String) -> Node {
            let node = Node()
            if let index = members.firstIndex(where: { $0.key == key }) { members[index].node = node } else { members.append((key, node)) }
            return node
        }

        func element() -> Node {
            let node = Node()
            elements.append(node)
            return node
        }

        func write(to text: inout String) {
            switch kind {
            case .unset, .null: text += "null"
            case .bool(let value): text += value ? "true" : "false"
            case .number(let value): text += value
            case .string(let value): text += JSONString.quote(value)
            case .array:
                text += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { text += "," }
                    element.write(to: &text)
                }
                text += "]"
            case .object:
                text += "{"
                for (index, member) in members.enumerated() {
                    if index > 0 { text += "," }
                    text += JSONString.quote(member.key)
                    text += ":"
                    member.node.write(to: &text)
                }
                text += "}"
            }
        }

        /// A primitive value's node kind; `nil`: not a primitive (encode it with its own `encode(to:)`).
        static func primitive(_ value: Any) -> Kind? {
            switch value {
            // Integers before floating point: a number is never written as another kind than it is.
            case let value as String: .string(value)
            case let value as Bool: .bool(value)
            case let value as Int: .number(String(value))
            case let value as Int64: .number(String(value))
            case let value as Int32: .number(String(value))
            case let value as Int16: .number(String(value))
            case let value as Int8: .number(String(value))
            case let value as UInt: .number(String(value))
            case let value as UInt64: .number(String(value))
            case let value as UInt32: .number(String(value))
            case let value as UInt16: .number(String(value))
            case let value as UInt8: .number(String(value))
            case let value as Double: number(value)
            case let value as Float: number(Double(value))
            case let value as FixedDecimal: value.text.map(Kind.number) ?? .null
            default: nil
            }
        }

        static func number(_ value: Double) -> Kind {
            guard value.isFinite else { return .null }
            return .number(value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value))
        }

        /// Writes `value` into this node.
        func set(_ value: some Encodable, codingPath: [any CodingKey]) throws {
            if let kind = Self.primitive(value) {
                self.kind = kind
            } else {
                try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
            }
        }
    }

    struct NodeEncoder: Encoder {
        let node: Node
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            // A second keyed container on one encoder adds to the same object (its members are kept apart from `kind`).
            node.kind = .object
            return KeyedEncodingContainer(Keyed(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            node.kind = .array
            return Unkeyed(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Single(node: node, codingPath: codingPath)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).kind = .null }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try node.member(key.stringValue).set(value, codingPath: codingPath + [key])
        }

        // Absent optionals are `null`, not left out (see the type).
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try put(value, key) }
        mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try put(value, key) }

        private mutating func put<T: Encodable>(_ value: T?, _ key: Key) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node, codingPath: codingPath) }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int { node.elements.count }

        mutating func encodeNil() throws { node.element().kind = .null }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try node.element().set(value, codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: node.element(), codingPath: codingPath).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.element(), codingPath: codingPath).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.element(), codingPath: codingPath) }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.kind = .null }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try node.set(value, codingPath: codingPath)
        }
    }
}
