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

    /// By the title's bytes (``QueryText/hash(_:into:)``): it is in NFC.
    public static func == (left: Self, right: Self) -> Bool { QueryText.same(left.title, right.title) && left.lang == right.lang }

    public func hash(into hasher: inout Hasher) {
        QueryText.hash(title, into: &hasher)
        hasher.combine(lang)
    }

    /// - Parameter title: the path's title, percent-decoded.
    public init(lang: String, title: String) throws {
        var title = title
        self = try title.withUTF8 { try SummaryKey(lang: lang, title: $0) }
    }

    /// - Parameter title: the path's title, percent-decoded (valid UTF-8): made one `String`, already normalised.
    public init(lang: String, title: UnsafeBufferPointer<UInt8>) throws {
        // Code points, never more than the bytes: counted (as the bytes that start one) only when those are more.
        let scalars = title.count <= Self.maximumLength ? title.count : title.count { $0 & 0xC0 != 0x80 }
        try self.init(lang: lang, title: QueryText.collapsed(title, separatorsBeyondWhitespace: Self.underscore, joiner: UInt8(ascii: "_")), scalars: scalars)
    }

    /// Underscores, which separate words as whitespace does.
    private static var underscore: ClosedRange<UInt8> { UInt8(ascii: "_")...UInt8(ascii: "_") }

    /// - Parameter normalised: the title's words between whitespace and underscores, joined by one underscore
    ///   (QueryText's rule, `_` a separator too). `scalars`: the code points of the title as asked (at most its bytes).
    private init(lang: String, title normalised: String, scalars: Int) throws {
        self.lang = try WikipediaLanguage.code(lang)
        guard !normalised.isEmpty else { throw HTTPError(.badRequest, "the title is empty") }
        guard scalars <= Self.maximumLength else { throw HTTPError(.badRequest, "a Wikipedia title is at most 255 characters") }
        var checked = normalised
        guard !checked.withUTF8({ $0.contains(where: Self.isForbidden) }) else {
            throw HTTPError(.badRequest, "a Wikipedia title cannot contain # < > [ ] | { } or control characters")
        }
        self.title = normalised
    }
}
