/// The decoded `name=value` pairs of a query string (`+` is a space, `%XX` is a byte, UTF-8 assumed).
public struct QueryParameters: Sendable, Equatable {
    public private(set) var pairs: [(name: String, value: String)]

    public init() { pairs = [] }

    /// Parses a raw query string (the part after `?`). Returns nil when a percent escape is malformed.
    /// Split at the bytes `&` and `=`, not at characters: a request target is ASCII (the head parser refuses
    /// anything else), where the two are the same, and walking bytes skips grapheme breaking — this runs for
    /// every request with a query.
    public init?(raw: Substring) {
        var raw = raw
        let parsed = raw.withUTF8 { Self.parse($0) }
        guard let parsed else { return nil }
        pairs = parsed
    }

    /// A request target's query, as bytes (ASCII, checked by the head parser).
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard let parsed = Self.parse(bytes) else { return nil }
        pairs = parsed
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        var start = 0
        while start < bytes.count {
            var end = start, equals = -1
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") {
                if equals < 0 && bytes[end] == UInt8(ascii: "=") { equals = end }
                end += 1
            }
            if end > start {
                let nameEnd = equals < 0 ? end : equals
                let valueStart = equals < 0 ? end : equals + 1
                guard let name = PercentDecoding.decode(UnsafeBufferPointer(rebasing: bytes[start..<nameEnd]), plusIsSpace: true),
                    let value = PercentDecoding.decode(UnsafeBufferPointer(rebasing: bytes[valueStart..<end]), plusIsSpace: true)
                else { return nil }
                pairs.append((name, value))
            }
            start = end + 1
        }
        return pairs
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
        var text = text
        return text.withUTF8 { decode($0, plusIsSpace: plusIsSpace) }
    }

    /// ``decode(_:plusIsSpace:)`` of bytes that are valid UTF-8 (a `String`'s, or a request target's ASCII).
    static func decode(_ utf8: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) -> String? {
        if !utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(decoding: utf8, as: UTF8.self)
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
