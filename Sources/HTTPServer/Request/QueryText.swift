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

    /// ``normalised(_:parameter:maximumLength:example:lowered:)`` of a value's decoded bytes (valid UTF-8) — in one pass
    /// into one `String` (a `String` of the value, its collapse and its lowering were three, a sixth of a cached geocoding
    /// answer).
    public static func normalised(
        _ bytes: UnsafeBufferPointer<UInt8>, parameter: String, maximumLength: Int, example: String, lowered: Bool = false
    ) throws -> String {
        // Code points, as JSON Schema's maxLength counts them: the bytes that start one (counted only when the bytes are more).
        guard bytes.count <= maximumLength || bytes.count(where: { $0 & 0xC0 != 0x80 }) <= maximumLength else {
            throw HTTPError(.badRequest, "\(parameter) must be at most \(maximumLength) characters")
        }
        let joined = collapsed(bytes, separatorsBeyondWhitespace: informationSeparators, lowered: lowered)
        guard !joined.isEmpty else { throw HTTPError(.badRequest, "\(parameter) is required (\(example))") }
        return joined
    }

    public static func normalised(_ text: String?, parameter: String, maximumLength: Int, example: String, lowered: Bool = false) throws -> String {
        let text = text ?? ""
        // Code points, as JSON Schema's maxLength counts them (never more than its bytes: counted only when those are more).
        guard text.utf8.count <= maximumLength || text.unicodeScalars.count <= maximumLength else {
            throw HTTPError(.badRequest, "\(parameter) must be at most \(maximumLength) characters")
        }
        let joined = collapsed(text, separatorsBeyondWhitespace: informationSeparators, lowered: lowered)
        guard !joined.isEmpty else { throw HTTPError(.badRequest, "\(parameter) is required (\(example))") }
        return joined
    }

    /// Where the run of plain word bytes from `start` ends — printable ASCII but the extra separators `low...high`, and no
    /// capital when `lowered`: bytes a collapse copies as they are. Eight bytes at a time where the separators allow it
    /// (none printable, or one: `_`), so a name's ASCII runs cost about an instruction a byte.
    @inline(__always)
    private static func plainRunEnd(
        _ base: UnsafePointer<UInt8>, from start: Int, count: Int, excludingFrom low: UInt8, to high: UInt8, lowered: Bool
    ) -> Int {
        var index = start
        if high < 0x21 || low == high {
            let excluded = high < 0x21 ? 0 : ByteWord.ones &* UInt64(low)
            func stops(_ word: UInt64) -> UInt64 {
                ByteWord.notPrintable(word, excluding: excluded) | (lowered ? ByteWord.capitalHighs(word) : 0)
            }
            while index + 8 <= count {
                let found = stops(ByteWord.load(base, at: index))
                if found != 0 { return index + found.trailingZeroBitCount >> 3 }
                index += 8
            }
            // The last few bytes: the text's last eight, shifted down past those already read. The lanes shifted in
            // are zero, which stops a run: where the text ends.
            if index < count && count >= 8 {
                let found = stops(ByteWord.load(base, at: count - 8) >> (64 - 8 * UInt64(count - index)))
                return index + found.trailingZeroBitCount >> 3
            }
        }
        while index < count && isWordByte(base[index], outside: low, high) && !(lowered && base[index] &- UInt8(ascii: "A") < 26) {
            index += 1
        }
        return index
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
    ///
    /// With `lowered`, the words are lower-cased as well (`lowercased()`'s answer), in the same pass: below U+0300 a
    /// capital's small letter is 0x20 above it where there is one (A…Z, À…Þ but ×) — `lowercased()` looks every scalar
    /// beyond ASCII up in Unicode's tables, which was a sixth of a cached geocoding answer.
    public static func collapsed(
        _ bytes: UnsafeBufferPointer<UInt8>, separatorsBeyondWhitespace: ClosedRange<UInt8>? = nil, joiner: UInt8 = 0x20, lowered: Bool = false
    ) -> String {
        switch collapsedBytes(bytes, separatorsBeyondWhitespace, joiner, lowered: lowered) {
        case .unchanged: String(decoding: bytes, as: UTF8.self)
        case .rewritten(let fast): fast
        case .beyondLatin:
            collapsed(String(decoding: bytes, as: UTF8.self), separatorsBeyondWhitespace: separatorsBeyondWhitespace, joiner: joiner, lowered: lowered)
        }
    }

    /// ``collapsed(_:separatorsBeyondWhitespace:joiner:lowered:)`` of a `String`.
    public static func collapsed(
        _ text: String, separatorsBeyondWhitespace: ClosedRange<UInt8>? = nil, joiner: UInt8 = 0x20, lowered: Bool = false
    ) -> String {
        var text = text
        switch text.withUTF8({ collapsedBytes($0, separatorsBeyondWhitespace, joiner, lowered: lowered) }) {
        case .unchanged: return text
        case .rewritten(let fast): return fast
        case .beyondLatin: break
        }
        let words = text.split { character in
            character.isWhitespace
                || character.unicodeScalars.allSatisfy { $0.isASCII && separatorsBeyondWhitespace?.contains(UInt8($0.value)) == true }
        }
        let joined = words.joined(separator: String(UnicodeScalar(joiner)))
        return (lowered ? joined.lowercased() : joined).precomposedStringWithCanonicalMapping
    }

    /// What a rewrite at the bytes found (``collapsedBytes(_:_:_:lowered:)``).
    private enum Rewritten {
        /// The text is its own result (one word, or words already one separator apart; nothing to lower): nothing is made.
        case unchanged
        case rewritten(String)
        /// A scalar the bytes' rule does not cover: the text goes the general way.
        case beyondLatin
    }

    /// ``collapsed(_:separatorsBeyondWhitespace:joiner:lowered:)`` of text below U+0300: written into room on the stack
    /// as it is read (one pass; runs of plain ASCII copied eight bytes at a time), and made a `String` only when it differs
    /// from the text.
    private static func collapsedBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ extra: ClosedRange<UInt8>?, _ joiner: UInt8, lowered: Bool) -> Rewritten {
        let (low, high) = extra.map { ($0.lowerBound, $0.upperBound) } ?? (1, 0)
        guard let base = bytes.baseAddress else { return .unchanged }
        let count = bytes.count
        let plainStart = plainRunEnd(base, from: 0, count: count, excludingFrom: low, to: high, lowered: lowered)
        // One word of plain bytes (the usual name) is its own result: nothing is made.
        if plainStart == count { return .unchanged }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { room -> Rewritten in
            guard let out = room.baseAddress else { return .unchanged }
            // What is written never outgrows what was read (a joiner stands for a separator): ``ByteWord/copy``'s terms.
            ByteWord.copy(base, from: 0, to: plainStart, within: count, into: out, at: 0)
            // Unchanged when every separator is a single joiner between words and nothing is lowered.
            var unchanged = true
            var written = plainStart
            var pendingJoiner = false
            var index = plainStart
            while index < count {
                let piece = Piece(base, at: index, count: count, extra: low, high, lowered: lowered)
                switch piece.kind {
                case .beyondLatin:
                    return .beyondLatin
                case .separator:
                    unchanged = unchanged && !pendingJoiner && written > 0 && piece.width == 1 && base[index] == joiner
                    pendingJoiner = written > 0
                    index += piece.width
                case .word:
                    if pendingJoiner {
                        out[written] = joiner
                        written += 1
                        pendingJoiner = false
                    }
                    out[written] = base[index]
                    if piece.width == 2 { out[written + 1] = base[index + 1] }
                    // A capital's small letter is 0x20 above it (the last byte: A…Z, or À…Þ's continuation).
                    if piece.lowers {
                        out[written + piece.width - 1] |= 0x20
                        unchanged = false
                    }
                    written += piece.width
                    index += piece.width
                }
                // The plain run after it, copied as it is.
                let end = plainRunEnd(base, from: index, count: count, excludingFrom: low, to: high, lowered: lowered)
                guard end > index else { continue }
                if pendingJoiner {
                    out[written] = joiner
                    written += 1
                    pendingJoiner = false
                }
                ByteWord.copy(base, from: index, to: end, within: count, into: out, at: written)
                (written, index) = (written + end - index, end)
            }
            // A separator last (or nothing but separators) is dropped.
            if unchanged && !pendingJoiner && written > 0 { return .unchanged }
            return .rewritten(String(decoding: UnsafeBufferPointer(start: out, count: written), as: UTF8.self))
        }
    }

    /// The character at a place in text below U+0300 (valid UTF-8): below U+0300 a scalar is one byte, or a lead byte
    /// below 0xCC and one continuation.
    private struct Piece {
        enum Kind { case word, separator, beyondLatin }
        var kind: Kind
        var width: Int
        /// A capital to lower (A…Z, À…Þ but ×), when lowering.
        var lowers: Bool

        @inline(__always)
        init(_ base: UnsafePointer<UInt8>, at index: Int, count: Int, extra low: UInt8, _ high: UInt8, lowered: Bool) {
            let byte = base[index]
            if isWordByte(byte, outside: low, high) {
                (kind, width, lowers) = (.word, 1, lowered && byte &- UInt8(ascii: "A") < 26)
            } else if byte < 0x80 {
                // Whitespace: TAB…CR and SPACE; then the extra separators. Other controls and DEL stand in words.
                let separates = byte &- 0x09 < 5 || byte == 0x20 || (byte >= low && byte <= high)
                (kind, width, lowers) = (separates ? .separator : .word, 1, false)
            } else if byte >= 0xCC {
                (kind, width, lowers) = (.beyondLatin, 1, false)
            } else if lowered && byte > 0xC3 {
                // U+0100…U+02FF (Latin Extended: Ā, Ł, İ, ǅ) hold capitals whose small letters are not 0x20 away:
                // lowered the general way.
                (kind, width, lowers) = (.beyondLatin, 1, false)
            } else {
                // U+0085 and U+00A0 are whitespace (0xC2 0x85, 0xC2 0xA0).
                let next = index + 1 < count ? base[index + 1] : 0
                let separates = byte == 0xC2 && (next == 0x85 || next == 0xA0)
                (kind, width, lowers) = (separates ? .separator : .word, 2, lowered && byte == 0xC3 && next &- 0x80 < 0x1F && next != 0x97)
            }
        }
    }
}
