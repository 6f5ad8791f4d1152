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
        let words = text.split { $0.isWhitespace || $0.unicodeScalars.allSatisfy { (0x1C...0x1F).contains($0.value) } }
        guard !words.isEmpty else { throw HTTPError(.badRequest, "\(parameter) is required (\(example))") }
        return words.joined(separator: " ")
    }
}
