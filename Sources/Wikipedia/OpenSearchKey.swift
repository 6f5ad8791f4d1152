import Feature
import HTTPServer
import SharedAnswers

/// An `action=opensearch` request: language, search text (trimmed, inner whitespace one space; case is kept:
/// Wikipedia ranks by it) and limit.
public struct OpenSearchKey: SharedAnswerKey {
    public static let limitRange = 1...100
    /// MediaWiki's own default.
    public static let defaultLimit = 10
    public static let maximumLength = 300

    public var lang: String
    public var search: String
    public var limit: Int

    public var storageKey: String { "\(lang):\(limit):\(search)" }
    public var description: String { storageKey }

    /// By the search's bytes (``QueryText/hash(_:into:)``): it is in NFC.
    public static func == (left: Self, right: Self) -> Bool {
        QueryText.same(left.search, right.search) && left.lang == right.lang && left.limit == right.limit
    }

    public func hash(into hasher: inout Hasher) {
        QueryText.hash(search, into: &hasher)
        hasher.combine(lang)
        hasher.combine(limit)
    }

    /// `search` and `limit` from the query (`namespace=0` and `format=json`, the app's, are the only ones served).
    public init(lang: String, query: QueryParameters) throws {
        self.lang = try WikipediaLanguage.code(lang)
        search = try QueryText.normalised(query["search"], parameter: "search", maximumLength: Self.maximumLength, example: "the text to look for")
        if let text = query["limit"] {
            guard let value = Int(text), Self.limitRange.contains(value) else {
                throw HTTPError(.badRequest, "limit must be a whole number between 1 and 100, not '\(text.prefix(20))'")
            }
            limit = value
        } else {
            limit = Self.defaultLimit
        }
        if let namespace = query["namespace"], namespace != "0" {
            throw HTTPError(.badRequest, "namespace must be 0 (articles), the only one Pier serves")
        }
        if let format = query["format"], format != "json" { throw HTTPError(.badRequest, "format must be json") }
        if let action = query["action"], action != "opensearch" { throw HTTPError(.badRequest, "action must be opensearch") }
    }
}
