/// Encodes an `Encodable` value as JSON with its members in the order they were encoded — `/health` and other
/// documents operators read keep their fields where they always were (Foundation's `JSONEncoder` orders them by hash
/// or by name). Its rules, written once:
/// - an optional encoded with `encodeIfPresent` (what synthesized conformances do) writes `null` when absent: a field
///   of these documents is always there, `null` when unknown (leave a member out by not encoding it);
/// - numbers and strings are written by ``JSONWriter``'s rules (a whole `Double` below 10^15 without a fraction, `/`
///   not escaped); a ``FixedDecimal`` with its decimals (`0.500`);
/// - a value that asks its encoder for a keyed container twice (one `encode(to:)` calling another's on the same
///   encoder) adds to one object: members of several values merge, in order.
///
/// ``Layout/sortedKeys`` is the other layout, the one of the answers the apps decode (`JSONBody`): every object's
/// keys in code-point order and absent optionals left out — Foundation's `JSONEncoder` with `.sortedKeys`, which wrote
/// them before, so equal data still gives equal bytes (and ETags) in every process.
public enum OrderedJSONEncoder {
    public enum Layout: Sendable {
        /// Members in the order encoded, absent optionals `null`.
        case asEncoded
        /// Keys sorted, absent optionals left out.
        case sortedKeys
    }

    public static func encode(_ value: some Encodable, layout: Layout = .asEncoded) throws -> [UInt8] {
        var writer = JSONWriter()
        try encode(value, layout: layout, into: &writer)
        return writer.bytes
    }

    public static func string(_ value: some Encodable) throws -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }

    /// Writes `value` as the writer's next value (a member's, an element).
    public static func encode(_ value: some Encodable, layout: Layout = .asEncoded, into writer: inout JSONWriter) throws {
        let root = Node(layout)
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        root.write(to: &writer)
    }

    /// What a value wrote, filled in as containers are asked for and written to.
    final class Node {
        enum Kind {
            case unset, null, bool(Bool), integer(Int), unsigned(UInt64), double(Double), fixed(String), string(String), array, object
        }

        let layout: Layout
        var kind = Kind.unset
        var members: [(key: String, node: Node)] = []
        var elements: [Node] = []

        init(_ layout: Layout) {
            self.layout = layout
        }

        /// A new node for member `key` (replacing the one written before under the same key, where it was).
        func member(_ key: String) -> Node {
            let node = Node(layout)
            if let index = members.firstIndex(where: { $0.key == key }) { members[index].node = node } else { members.append((key, node)) }
            return node
        }

        func element() -> Node {
            let node = Node(layout)
            elements.append(node)
            return node
        }

        func write(to writer: inout JSONWriter) {
            switch kind {
            case .unset, .null: writer.null()
            case .bool(let value): writer.bool(value)
            case .integer(let value): writer.number(value)
            case .unsigned(let value): writer.json(String(value).utf8)
            case .double(let value): writer.number(value)
            case .fixed(let text): writer.json(text.utf8)
            case .string(let value): writer.string(value)
            case .array: writer.array { writer in for element in elements { element.write(to: &writer) } }
            case .object: writer.object { writer in
                for member in layout == .sortedKeys ? members.sorted(by: { $0.key < $1.key }) : members {
                    writer.key(member.key)
                    member.node.write(to: &writer)
                }
            }
            }
        }

        /// A primitive value's node kind; `nil`: not a primitive (encode it with its own `encode(to:)`).
        static func primitive(_ value: Any) -> Kind? {
            switch value {
            // Integers before floating point: a number is never written as another kind than it is.
            case let value as String: .string(value)
            case let value as Bool: .bool(value)
            case let value as Int: .integer(value)
            case let value as Int64: .integer(Int(value))
            case let value as Int32: .integer(Int(value))
            case let value as Int16: .integer(Int(value))
            case let value as Int8: .integer(Int(value))
            case let value as UInt: .unsigned(UInt64(value))
            case let value as UInt64: .unsigned(value)
            case let value as UInt32: .integer(Int(value))
            case let value as UInt16: .integer(Int(value))
            case let value as UInt8: .integer(Int(value))
            case let value as Double: .double(value)
            case let value as Float: .double(Double(value))
            case let value as FixedDecimal: value.text.map(Kind.fixed) ?? .null
            default: nil
            }
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
            if let value { try encode(value, forKey: key) } else if node.layout == .asEncoded { try encodeNil(forKey: key) }
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
