/// The decoded `name=value` pairs of a query string (`+` is a space, `%XX` is a byte, UTF-8 assumed).
public struct QueryParameters: Sendable, Equatable {
    public private(set) var pairs: [(name: String, value: String)]

    public init() { pairs = [] }

    /// Parses a raw query string (the part after `?`). Returns nil when a percent escape is malformed.
    /// Split at the bytes `&` and `=`, not at characters: a request target is ASCII (the head parser refuses
    /// anything else), where the two are the same, and walking bytes skips grapheme breaking — this runs for
    /// every request with a query.
    public init?(raw: Substring) {
        pairs = []
        for piece in raw.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let name = piece[..<(equals ?? piece.endIndex)]
            let value = equals.map { piece[piece.index(after: $0)...] } ?? piece[piece.endIndex...]
            guard let name = PercentDecoding.decode(Substring(name), plusIsSpace: true),
                let value = PercentDecoding.decode(Substring(value), plusIsSpace: true)
            else { return nil }
            pairs.append((name, value))
        }
    }

    /// The first value given for `name`.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    public func values(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    public var isEmpty: Bool { pairs.isEmpty }

    public static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// Percent-decoding of URL components.
public enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` when asked). Nil for a truncated or non-hex escape or invalid UTF-8.
    public static func decode(_ text: Substring, plusIsSpace: Bool) -> String? {
        let utf8 = text.utf8
        if !utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
