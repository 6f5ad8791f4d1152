import Feature
import HTTPServer

/// A geocoding request: the text normalised (trimmed, inner whitespace one space, lower-cased — "Nürnberg",
/// " nürnberg " and "NÜRNBERG" are one request) and the language.
public struct GeocodeKey: SharedAnswerKey {
    public static let maximumLength = 200

    public var text: String
    public var lang: String

    public var storageKey: String { "\(lang);\(text)" }
    public var description: String { storageKey }

    /// `text` and `lang` from `/v1/geocode`'s query (`apiKey` is accepted and ignored).
    public init(_ query: QueryParameters) throws {
        let normalised = (query["text"] ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased()
        guard !normalised.isEmpty else { throw HTTPError(.badRequest, "text is required (a place name, e.g. text=Nürnberg)") }
        guard normalised.count <= Self.maximumLength, !normalised.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw HTTPError(.badRequest, "text must be at most \(Self.maximumLength) characters of a place name")
        }
        text = normalised
        lang = try PlacesQuery.lang(query["lang"])
    }
}
