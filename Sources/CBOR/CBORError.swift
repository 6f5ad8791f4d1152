/// Why bytes are not a CBOR item Pier reads.
public enum CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ends inside an item (at this offset).
    case truncated(at: Int)
    /// Indefinite-length strings, arrays and maps are not read (App Attest never sends them).
    case indefiniteLength(at: Int)
    /// Additional information 28–30 (reserved by RFC 8949).
    case reserved(at: Int)
    /// Nested deeper than ``CBORDecoder/maximumDepth``.
    case tooDeep(at: Int)
    /// A length longer than what is left of the input, or than the decoder's bound.
    case tooLong(at: Int)
    case invalidText(at: Int)
    /// A map with the same key twice.
    case duplicateKey(at: Int)
    /// Bytes after the top-level item.
    case trailingBytes(at: Int)

    public var description: String {
        switch self {
        case let .truncated(offset): "CBOR ends inside an item (byte \(offset))"
        case let .indefiniteLength(offset): "CBOR indefinite lengths are not accepted (byte \(offset))"
        case let .reserved(offset): "CBOR reserved additional information (byte \(offset))"
        case let .tooDeep(offset): "CBOR nested too deep (byte \(offset))"
        case let .tooLong(offset): "CBOR length beyond the input (byte \(offset))"
        case let .invalidText(offset): "CBOR text that is not UTF-8 (byte \(offset))"
        case let .duplicateKey(offset): "CBOR map with a duplicate key (byte \(offset))"
        case let .trailingBytes(offset): "bytes after the CBOR item (byte \(offset))"
        }
    }
}
