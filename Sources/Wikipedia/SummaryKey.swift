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
    /// Characters MediaWiki never allows in a title, `#<>[]|{}` and the controls (ASCII: looked for as bytes, a combining
    /// mark after one included).
    static func isForbidden(_ byte: UInt8) -> Bool {
        switch byte {
        case 0..<0x20, 0x7F, UInt8(ascii: "#"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "|"), UInt8(ascii: "{"), UInt8(ascii: "}"): true
        default: false
        }
    }

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
        // Code points, never more than the bytes: counted only when those are more.
        guard title.utf8.count <= Self.maximumLength || title.unicodeScalars.count <= Self.maximumLength else { throw HTTPError(.badRequest, "a Wikipedia title is at most 255 characters") }
        var checked = normalised
        guard !checked.withUTF8({ $0.contains(where: Self.isForbidden) }) else {
            throw HTTPError(.badRequest, "a Wikipedia title cannot contain # < > [ ] | { } or control characters")
        }
        self.title = normalised
    }
}
