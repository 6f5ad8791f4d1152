/// A JSON value read by ``JSONScanner``, with the byte range it occupies in the text it came from, so that an
/// answer can be passed on exactly as the upstream wrote it and changed only where Pier adds something.
struct JSONNode: Sendable {
    enum Kind: Sendable {
        case object([(key: String, value: JSONNode)])
        case array([JSONNode])
        case string(String)
        case number
        case bool(Bool)
        case null
    }

    var kind: Kind
    /// Where the value stands in the text (for an object, `{` to `}` inclusive).
    var range: Range<Int>

    /// The member named `key` of an object (the first, if the text repeats it).
    subscript(key: String) -> JSONNode? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key }?.value
    }

    var string: String? {
        if case .string(let text) = kind { return text }
        return nil
    }

    var elements: [JSONNode]? {
        if case .array(let elements) = kind { return elements }
        return nil
    }

    var isObject: Bool {
        if case .object = kind { return true }
        return false
    }

    var isNull: Bool {
        if case .null = kind { return true }
        return false
    }

    var isEmptyObject: Bool {
        if case .object(let members) = kind { return members.isEmpty }
        return false
    }

    /// An integer written without fraction or exponent, from the text's bytes.
    func integer(in text: [UInt8]) -> Int? {
        guard case .number = kind else { return nil }
        return Int(String(decoding: text[range], as: UTF8.self))
    }
}
