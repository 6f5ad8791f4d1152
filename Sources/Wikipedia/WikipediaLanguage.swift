import HTTPServer

/// A Wikipedia language code as it appears in the host (`de`, `en`, `simple`, `zh-yue`, `be-tarask`): lower-case
/// letters, optionally dash-separated parts. Checked before it goes into a host name.
public enum WikipediaLanguage {
    public static func code(_ text: String) throws -> String {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count <= 16, let first = parts.first, (2...12).contains(first.utf8.count),
            parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 97 && $0 <= 122 } })
        else {
            throw HTTPError(.badRequest, "lang must be a Wikipedia language code such as de or en, not '\(text.prefix(20))'")
        }
        return text
    }
}
