
/// A JSON value read by ``JSONScanner``, with the byte range it occupies in the text it came from, so that an
/// answer can be passed on exactly as the upstream wrote it and changed only where Pier adds something.
public struct JSONNode: Sendable {
    /// An object's member. A struct, not a `(key, value)` tuple: an array of tuples has its type's metadata made at run
    /// time, looked up in the runtime's tables on every object read (~600 instructions of a community call's arguments).
    public struct Member: Sendable {
        public var key: String
        public var value: JSONNode

        public init(key: String, value: JSONNode) {
            self.key = key
            self.value = value
        }
    }

    public enum Kind: Sendable {
        case object([Member])
        case array([JSONNode])
        case string(String)
        case number
        case bool(Bool)
        case null
    }

    public var kind: Kind
    /// Where the value stands in the text (for an object, `{` to `}` inclusive).
    public var range: Range<Int>

    /// The member named `key` of an object (the first, if the text repeats it).
    public subscript(key: String) -> JSONNode? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var string: String? {
        if case .string(let text) = kind { return text }
        return nil
    }

    public var elements: [JSONNode]? {
        if case .array(let elements) = kind { return elements }
        return nil
    }

    public var isObject: Bool {
        if case .object = kind { return true }
        return false
    }

    public var isNull: Bool {
        if case .null = kind { return true }
        return false
    }

    public var isEmptyObject: Bool {
        if case .object(let members) = kind { return members.isEmpty }
        return false
    }

    /// An integer written without fraction or exponent, from the text's bytes.
    public func integer(in text: [UInt8]) -> Int? {
        guard case .number = kind else { return nil }
        return Int(String(decoding: text[range], as: UTF8.self))
    }

    /// A number's value, from the text's bytes (`nil` for anything but a number).
    public func number(in text: [UInt8]) -> Double? {
        guard case .number = kind else { return nil }
        return Double(String(decoding: text[range], as: UTF8.self))
    }

    /// Whether the number is written as an integer (no fraction, no exponent), as `Int` decoders need.
    public func isInteger(in text: [UInt8]) -> Bool {
        guard case .number = kind else { return false }
        return !text[range].contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }
}
