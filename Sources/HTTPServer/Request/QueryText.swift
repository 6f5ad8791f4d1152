/// Free text from a query (a place name, a search): trimmed, inner whitespace one space. Whitespace is Unicode's
/// plus the C0 separators U+001C…U+001F, as the OpenAPI description's pattern lists them, so the description
/// and the server agree on which texts are empty.
public enum QueryText {
    public static func normalised(_ text: String?, parameter: String, maximumLength: Int, example: String) throws -> String {
        let text = text ?? ""
        // Code points, as JSON Schema's maxLength counts them.
        guard text.unicodeScalars.count <= maximumLength else {
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
        if let fast = text.withUTF8(lowercasedLatin1) { return fast }
        return text.lowercased()
    }

    private static func lowercasedLatin1(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        // U+0080…U+00FF are C2 xx and C3 xx; a lead byte is followed by its continuation (the text is valid UTF-8).
        guard !bytes.contains(where: { $0 >= 0x80 && $0 != 0xC2 && $0 != 0xC3 && $0 & 0xC0 != 0x80 }) else { return nil }
        return String(unsafeUninitializedCapacity: bytes.count) { out in
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
        }
    }

    /// U+001C…U+001F: C0's information separators, which Unicode does not call whitespace but the OpenAPI pattern does.
    public static let informationSeparators: ClosedRange<UInt8> = 0x1C...0x1F

    /// `text`'s words — split at whitespace (`Character.isWhitespace`) and at the ASCII controls in
    /// `separatorsBeyondWhitespace` — joined by one `joiner`; empty when there is no word.
    ///
    /// Text whose scalars all lie below U+0300 (ASCII, Latin-1, the Latin extensions: `Nürnberg`, `Schöner Brunnen`) is
    /// split at its bytes: below U+0300 no scalar joins the one before it into a grapheme (only CR LF does, both
    /// whitespace), so its characters are its scalars and the bytes give the same words as the characters — without
    /// the grapheme breaking and property look-ups that made this a third of a cached geocoding answer's instructions.
    public static func collapsed(_ text: String, separatorsBeyondWhitespace: ClosedRange<UInt8>? = nil, joiner: UInt8 = 0x20) -> String {
        var text = text
        if let fast = text.withUTF8({ collapsedBytes($0, separatorsBeyondWhitespace, joiner) }) { return fast }
        let words = text.split { character in
            character.isWhitespace
                || character.unicodeScalars.allSatisfy { $0.isASCII && separatorsBeyondWhitespace?.contains(UInt8($0.value)) == true }
        }
        return words.joined(separator: String(UnicodeScalar(joiner)))
    }

    /// ``collapsed(_:separatorsBeyondWhitespace:joiner:)`` of text below U+0300, or `nil` for any other text.
    private static func collapsedBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ extra: ClosedRange<UInt8>?, _ joiner: UInt8) -> String? {
        // A lead byte from 0xCC on starts a scalar from U+0300 on.
        guard !bytes.contains(where: { $0 >= 0xCC }) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        var pendingJoiner = false
        while index < bytes.count {
            let byte = bytes[index]
            // Whitespace below U+0300: TAB…CR, SPACE, and U+0085 and U+00A0 (0xC2 0x85, 0xC2 0xA0).
            let width: Int
            if (0x09...0x0D).contains(byte) || byte == 0x20 || extra?.contains(byte) == true {
                width = 1
            } else if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0x85 || bytes[index + 1] == 0xA0 {
                width = 2
            } else {
                width = 0
            }
            if width > 0 {
                pendingJoiner = !out.isEmpty
                index += width
                continue
            }
            if pendingJoiner {
                out.append(joiner)
                pendingJoiner = false
            }
            out.append(byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
