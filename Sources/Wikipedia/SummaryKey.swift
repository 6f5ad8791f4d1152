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
    /// Characters MediaWiki never allows in a title.
    static let forbidden: Set<Character> = ["#", "<", ">", "[", "]", "|", "{", "}"]

    public var lang: String
    public var title: String

    public var storageKey: String { "\(lang):\(title)" }
    public var description: String { storageKey }

    /// - Parameter title: the path's title, percent-decoded.
    public init(lang: String, title: String) throws {
        self.lang = try WikipediaLanguage.code(lang)
        let words = title.split { $0 == "_" || $0.isWhitespace }
        let normalised = words.joined(separator: "_")
        guard !normalised.isEmpty else { throw HTTPError(.badRequest, "the title is empty") }
        guard title.unicodeScalars.count <= Self.maximumLength else { throw HTTPError(.badRequest, "a Wikipedia title is at most 255 characters") }
        guard !normalised.contains(where: { Self.forbidden.contains($0) }), !normalised.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw HTTPError(.badRequest, "a Wikipedia title cannot contain # < > [ ] | { } or control characters")
        }
        self.title = normalised
    }
}
