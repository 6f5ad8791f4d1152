import HTTPServer

/// A Wikipedia language code as it appears in the host (`de`, `en`, `simple`, `zh-yue`, `be-tarask`): lower-case
/// letters, optionally dash-separated parts. Checked before it goes into a host name.
public enum WikipediaLanguage {
    public static func code(_ text: String) throws -> String {
        var bytes = text
        guard bytes.withUTF8(isCode) else {
            throw HTTPError(.badRequest, "lang must be a Wikipedia language code such as de or en, not '\(text.prefix(20))'")
        }
        return text
    }

    /// At most 16 bytes: parts of `a`…`z` between single dashes, the first of 2 to 12 letters — walked as bytes (split
    /// into an array of parts, this was a fifth of a cached summary's key).
    static func isCode(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count <= 16 else { return false }
        var part = 0, first = true
        for byte in bytes {
            if byte == UInt8(ascii: "-") {
                guard part > 0, !first || (2...12).contains(part) else { return false }
                (part, first) = (0, false)
            } else {
                guard byte >= 97 && byte <= 122 else { return false }
                part += 1
            }
        }
        return part > 0 && (!first || (2...12).contains(part))
    }
}
