import Feature
import HTTPServer
import SharedAnswers

/// A page summary request: the language and the title in Wikipedia's normalised form (underscores for
/// spaces, one at a time, none at either end — what RESTBase would redirect to), so `Schöner Brunnen` and
/// `Schöner_Brunnen` are one cache entry and one upstream call.
public struct SummaryKey: SharedAnswerKey {
    /// MediaWiki's limit for a title is 255 bytes; Pier counts code points (as the OpenAPI description can), and
    /// a longer title in bytes is one Wikipedia refuses, answered as a page that does not exist.
    public static let maximumLength = 255
    /// Characters MediaWiki never allows in a title (ASCII: looked for as bytes, a combining mark after one included).
    static let forbidden = Array("#<>[]|{}".utf8)

    public var lang: String
    public var title: String

    public var storageKey: String { "\(lang):\(title)" }
    public var description: String { storageKey }

    /// - Parameter title: the path's title, percent-decoded.
    public init(lang: String, title: String) throws {
        self.lang = try WikipediaLanguage.code(lang)
        // Words between whitespace and underscores, joined by one underscore (QueryText's rule, `_` a separator too).
        let normalised = QueryText.collapsed(title, separatorsBeyondWhitespace: UInt8(ascii: "_")...UInt8(ascii: "_"), joiner: UInt8(ascii: "_"))
        guard !normalised.isEmpty else { throw HTTPError(.badRequest, "the title is empty") }
        guard title.unicodeScalars.count <= Self.maximumLength else { throw HTTPError(.badRequest, "a Wikipedia title is at most 255 characters") }
        var checked = normalised
        guard !checked.withUTF8({ $0.contains { Self.forbidden.contains($0) || $0 < 0x20 || $0 == 0x7F } }) else {
            throw HTTPError(.badRequest, "a Wikipedia title cannot contain # < > [ ] | { } or control characters")
        }
        self.title = normalised
    }
}
