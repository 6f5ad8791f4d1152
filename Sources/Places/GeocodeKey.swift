import Feature
import HTTPServer
import SharedAnswers

/// A geocoding request: the text normalised (trimmed, inner whitespace one space, lower-cased — "Nürnberg",
/// " nürnberg " and "NÜRNBERG" are one request) and the language.
public struct GeocodeKey: SharedAnswerKey {
    public static let maximumLength = 200

    public var text: String
    public var lang: String

    public var storageKey: String { "\(lang);\(text)" }
    public var description: String { storageKey }

    /// By the text's bytes (``QueryText/hash(_:into:)``): it is in NFC.
    public static func == (left: Self, right: Self) -> Bool { QueryText.same(left.text, right.text) && left.lang == right.lang }

    public func hash(into hasher: inout Hasher) {
        QueryText.hash(text, into: &hasher)
        hasher.combine(lang)
    }

    /// A search for `text` in `lang` made by Pier itself (a port of a cruise), normalised as a query's; `nil` when blank or
    /// too long.
    public init?(text: String, lang: String) {
        guard let normalised = try? QueryText.normalised(text, parameter: "text", maximumLength: Self.maximumLength, example: "", lowered: true),
            let lang = try? PlacesQuery.lang(lang)
        else { return nil }
        self.text = normalised
        self.lang = lang
    }

    /// `text` and `lang` from `/v1/geocode`'s query (`apiKey` is accepted and ignored).
    public init(_ query: QueryParameters) throws {
        // Normalised and lowered from the value's bytes in one pass (one `String`).
        let example = "a place name, e.g. text=Nürnberg"
        text = try query.withValue(literal: "text") {
            try QueryText.normalised($0, parameter: "text", maximumLength: Self.maximumLength, example: example, lowered: true)
        } ?? QueryText.normalised(nil as String?, parameter: "text", maximumLength: Self.maximumLength, example: example, lowered: true)
        lang = try PlacesQuery.lang(in: query)
    }
}
