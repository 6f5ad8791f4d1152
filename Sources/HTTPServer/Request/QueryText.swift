import Foundation

/// Free text from a query (a place name, a search): trimmed, inner whitespace one space. Whitespace is Unicode's
/// plus the C0 separators U+001C…U+001F, as the OpenAPI description's pattern lists them, so the description
/// and the server agree on which texts are empty.
///
/// What this type gives is in NFC, Unicode's composed form (text below U+0300 always is; other text is composed when
/// it is rewritten), so a cache key made of it compares and hashes by its bytes (``hash(_:into:)``, ``same(_:_:)``):
/// `String`'s own hash and `==` normalise every text beyond ASCII first, most of a cached answer found by a name.
public enum QueryText {
    /// Feeds `text`'s bytes (and their count, so that two texts in one key cannot trade bytes) to `hasher`, eight at a
    /// time as words (the last one zero-padded): the same bytes to the seeded hash, at a word's price per eight
    /// (`combine(bytes:)` cost ~160 for one short name).
    public static func hash(_ text: String, into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { bytes in
            hasher.combine(bytes.count)
            guard let base = bytes.baseAddress else { return }
            let whole = bytes.count & ~7
            var index = 0
            while index < whole {
                hasher.combine(ByteWord.load(base, at: index))
                index += 8
            }
            guard index < bytes.count else { return }
            var tail: UInt64 = 0
            for byte in bytes[index...].reversed() { tail = tail << 8 | UInt64(byte) }
            hasher.combine(tail)
        }
    }

    /// Whether two texts this type gave are the same: the same bytes.
    public static func same(_ left: String, _ right: String) -> Bool {
        var left = left, right = right
        return left.withUTF8 { left in right.withUTF8 { right in ByteScan.equal(left, right) } }
    }

    public static func normalised(_ text: String?, parameter: String, maximumLength: Int, example: String) throws -> String {
        let text = text ?? ""
        // Code points, as JSON Schema's maxLength counts them (never more than its bytes: counted only when those are more).
        guard text.utf8.count <= maximumLength || text.unicodeScalars.count <= maximumLength else {
            throw HTTPError(.badRequest, "\(parameter) must be at most \(maximumLength) characters")
        }
        let joined = collapsed(text, separatorsBeyondWhitespace: informationSeparators)
        guard !joined.isEmpty else { throw HTTPError(.badRequest, "\(parameter) is required (\(example))") }
        return joined
    }

    /// `text.lowercased()`, with text made of ASCII and Latin-1 (`Nürnberg`, `ZÜRICH`) lowered at its bytes: there
    /// each capital's small letter is 0x20 above it (À…Þ but ×), and nothing else changes — `lowercased()` looks every
    /// non-ASCII scalar up in Unicode's tables, which was a sixth of a cached geocoding answer. Anything else is its.
    public static func lowercased(_ text: String) -> String {
        var text = text
        switch text.withUTF8(lowercasedLatin1) {
        case .unchanged: return text
        case .rewritten(let fast): return fast
        case .beyondLatin: return text.lowercased().precomposedStringWithCanonicalMapping
        }
    }

    private static func lowercasedLatin1(_ bytes: UnsafeBufferPointer<UInt8>) -> Rewritten {
        if let ascii = lowercasedASCII(bytes) { return ascii }
        // U+0080…U+00FF are C2 xx and C3 xx; a lead byte is followed by its continuation (the text is valid UTF-8).
        var capitals = false
        var afterC3 = false
        for byte in bytes {
            if byte < 0x80 {
                // ASCII, the usual case, in one comparison: A…Z.
                capitals = capitals || byte &- UInt8(ascii: "A") < 26
            } else {
                guard byte == 0xC2 || byte == 0xC3 || byte & 0xC0 == 0x80 else { return .beyondLatin }
                capitals = capitals || (afterC3 && byte <= 0x9E && byte != 0x97)
            }
            afterC3 = byte == 0xC3
        }
        guard capitals else { return .unchanged }
        return .rewritten(String(unsafeUninitializedCapacity: bytes.count) { out in
            var afterC3 = false
            for (index, byte) in bytes.enumerated() {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): out[index] = byte | 0x20
                case 0x80...0x9E where afterC3 && byte != 0x97: out[index] = byte + 0x20
                default: out[index] = byte
                }
                afterC3 = byte == 0xC3
            }
            return bytes.count
        })
    }

    /// ``lowercasedLatin1(_:)`` of ASCII text, eight bytes at a time; `nil` for text beyond ASCII.
    private static func lowercasedASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Rewritten? {
        guard let base = bytes.baseAddress else { return .unchanged }
        let whole = bytes.count & ~7
        var capitals: UInt64 = 0
        var index = 0
        while index < whole {
            let word = ByteWord.load(base, at: index)
            guard word & ByteWord.highs == 0 else { return nil }
            capitals |= ByteWord.capitals(word)
            index += 8
        }
        for byte in bytes[whole...] {
            guard byte < 0x80 else { return nil }
            if byte &- UInt8(ascii: "A") < 26 { capitals = 1 }
        }
        guard capitals != 0 else { return .unchanged }
        return .rewritten(String(unsafeUninitializedCapacity: bytes.count) { out in
            guard let target = out.baseAddress else { return 0 }
            var index = 0
            while index < whole {
                let word = ByteWord.load(base, at: index)
                UnsafeMutableRawPointer(target + index).storeBytes(of: (word | ByteWord.capitals(word)).littleEndian, as: UInt64.self)
                index += 8
            }
            for index in whole..<bytes.count {
                let byte = bytes[index]
                out[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            }
            return bytes.count
        })
    }

    /// Whether `bytes` are one word of printable ASCII without the extra separators `low...high` (the usual name: its own
    /// collapse), read eight bytes at a time where the separators allow it (none printable, or one: `_`).
    private static func isOneWord(_ bytes: UnsafeBufferPointer<UInt8>, excludingFrom low: UInt8, to high: UInt8) -> Bool {
        guard let base = bytes.baseAddress, high < 0x21 || low == high else { return false }
        let excluded = high < 0x21 ? 0 : ByteWord.ones &* UInt64(low)
        let whole = bytes.count & ~7
        var index = 0
        while index < whole {
            guard ByteWord.isPrintable(ByteWord.load(base, at: index), excluding: excluded) else { return false }
            index += 8
        }
        return bytes[whole...].allSatisfy { isWordByte($0, outside: low, high) }
    }

    /// Printable ASCII but the extra separators `low...high`: part of a word, in a few comparisons.
    @inline(__always)
    private static func isWordByte(_ byte: UInt8, outside low: UInt8, _ high: UInt8) -> Bool {
        byte &- 0x21 < 0x5E && (byte < low || byte > high)
    }

    /// U+001C…U+001F: C0's information separators, which Unicode does not call whitespace but the OpenAPI pattern does.
    public static let informationSeparators: ClosedRange<UInt8> = 0x1C...0x1F

    /// The words of `bytes` (valid UTF-8) — split at whitespace (`Character.isWhitespace`) and at the ASCII controls in
    /// `separatorsBeyondWhitespace` — joined by one `joiner`; empty when there is no word. Made from the bytes, the text
    /// is one `String` (made from a `String`, one more when it changes).
    ///
    /// Text whose scalars all lie below U+0300 (ASCII, Latin-1, the Latin extensions: `Nürnberg`, `Schöner Brunnen`) is
    /// split at its bytes: below U+0300 no scalar joins the one before it into a grapheme (only CR LF does, both
    /// whitespace), so its characters are its scalars and the bytes give the same words as the characters — without
    /// the grapheme breaking and property look-ups that made this a third of a cached geocoding answer's instructions.
    public static func collapsed(_ bytes: UnsafeBufferPointer<UInt8>, separatorsBeyondWhitespace: ClosedRange<UInt8>? = nil, joiner: UInt8 = 0x20) -> String {
        switch collapsedBytes(bytes, separatorsBeyondWhitespace, joiner) {
        case .unchanged: String(decoding: bytes, as: UTF8.self)
        case .rewritten(let fast): fast
        case .beyondLatin: collapsed(String(decoding: bytes, as: UTF8.self), separatorsBeyondWhitespace: separatorsBeyondWhitespace, joiner: joiner)
        }
    }

    /// ``collapsed(_:separatorsBeyondWhitespace:joiner:)`` of a `String`.
    public static func collapsed(_ text: String, separatorsBeyondWhitespace: ClosedRange<UInt8>? = nil, joiner: UInt8 = 0x20) -> String {
        var text = text
        switch text.withUTF8({ collapsedBytes($0, separatorsBeyondWhitespace, joiner) }) {
        case .unchanged: return text
        case .rewritten(let fast): return fast
        case .beyondLatin: break
        }
        let words = text.split { character in
            character.isWhitespace
                || character.unicodeScalars.allSatisfy { $0.isASCII && separatorsBeyondWhitespace?.contains(UInt8($0.value)) == true }
        }
        return words.joined(separator: String(UnicodeScalar(joiner))).precomposedStringWithCanonicalMapping
    }

    /// What a rewrite at the bytes found (``collapsedBytes(_:_:_:)``, ``lowercasedLatin1(_:)``).
    private enum Rewritten {
        /// The text is its own result (one word, or words already one separator apart; nothing to lower): nothing is made.
        case unchanged
        case rewritten(String)
        /// A scalar the bytes' rule does not cover: the text goes the general way.
        case beyondLatin
    }

    /// ``collapsed(_:separatorsBeyondWhitespace:joiner:)`` of text below U+0300, written straight into its `String`.
    private static func collapsedBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ extra: ClosedRange<UInt8>?, _ joiner: UInt8) -> Rewritten {
        // Whitespace below U+0300: TAB…CR, SPACE, and U+0085 and U+00A0 (0xC2 0x85, 0xC2 0xA0).
        func separator(at index: Int) -> Int {
            let byte = bytes[index]
            if (0x09...0x0D).contains(byte) || byte == 0x20 || extra?.contains(byte) == true { return 1 }
            if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0x85 || bytes[index + 1] == 0xA0 { return 2 }
            return 0
        }
        // Unchanged when no separator leads or ends it and every one between words is a single joiner (one word of
        // printable ASCII, the usual name, found eight bytes at a time). Printable ASCII but the extra separators is part
        // of a word in a few comparisons; a lead byte from 0xCC on starts a scalar from U+0300 on.
        let (low, high) = extra.map { ($0.lowerBound, $0.upperBound) } ?? (1, 0)
        if isOneWord(bytes, excludingFrom: low, to: high) { return .unchanged }
        var index = 0
        var unchanged = true
        var afterWord = false
        while index < bytes.count {
            let byte = bytes[index]
            if isWordByte(byte, outside: low, high) {
                afterWord = true
                index += 1
                continue
            }
            if byte >= 0xCC { return .beyondLatin }
            let width = separator(at: index)
            if width == 0 {
                afterWord = true
                index += 1
            } else {
                unchanged = unchanged && afterWord && width == 1 && byte == joiner && index + 1 < bytes.count && separator(at: index + 1) == 0
                afterWord = false
                index += width
            }
        }
        if unchanged { return .unchanged }
        return .rewritten(String(unsafeUninitializedCapacity: bytes.count) { out in
            var count = 0
            var index = 0
            var pendingJoiner = false
            while index < bytes.count {
                let byte = bytes[index]
                let width = isWordByte(byte, outside: low, high) ? 0 : separator(at: index)
                if width > 0 {
                    pendingJoiner = count > 0
                    index += width
                    continue
                }
                if pendingJoiner {
                    out[count] = joiner
                    count += 1
                    pendingJoiner = false
                }
                out[count] = byte
                count += 1
                index += 1
            }
            return count
        })
    }
}
