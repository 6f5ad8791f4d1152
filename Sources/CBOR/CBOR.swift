/// A CBOR data item (RFC 8949) as App Attest uses them: attestation objects, assertions and COSE keys. Only what
/// definite-length encoding can say; floats and simple values are kept so that a document holding one still reads.
public indirect enum CBOR: Sendable, Equatable {
    case unsigned(UInt64)
    /// `-1 - n` for the encoded `n` (kept as `n`, so the whole range fits).
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Pairs in the order encoded (keys may be of any type; duplicates are refused when read).
    case map([(key: CBOR, value: CBOR)])
    case tagged(UInt64, CBOR)
    case simple(UInt8)
    case bool(Bool)
    case null
    case undefined
    case float(Double)

    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case let (.unsigned(a), .unsigned(b)), let (.negative(a), .negative(b)): a == b
        case let (.bytes(a), .bytes(b)): a == b
        case let (.text(a), .text(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.map(a), .map(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.tagged(t, a), .tagged(u, b)): t == u && a == b
        case let (.simple(a), .simple(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null), (.undefined, .undefined): true
        case let (.float(a), .float(b)): a == b || (a.isNaN && b.isNaN)
        default: false
        }
    }

    /// The value of a map's text key (`"fmt"`), or of an integer key (COSE's `1`, `-2`).
    public subscript(key: String) -> CBOR? { self[.text(key)] }
    public subscript(key: Int) -> CBOR? { self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))] }

    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    public var bytes: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var array: [CBOR]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// An integer that fits `Int`.
    public var int: Int? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value): value <= UInt64(Int.max) ? -1 - Int(value) : nil
        default: nil
        }
    }
}
