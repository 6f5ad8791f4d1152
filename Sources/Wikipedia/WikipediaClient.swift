import Feature
import Foundation
import OnDemand
import SharedAnswers
import UpstreamHTTP

/// Wikipedia's page summaries (RESTBase, `GET {base}/api/rest_v1/page/summary/{title}`) and title search
/// (`GET {base}/w/api.php?action=opensearch…`), `{lang}` in the base replaced by the language. Every call
/// carries Pier's descriptive `User-Agent` with the operator's contact (Wikimedia's User-Agent policy).
/// Redirects (RESTBase's `301` to a normalised title, `302` for a redirect page) are followed by the client.
public struct WikipediaClient: Sendable {
    public static let defaultURL = "https://{lang}.wikipedia.org"

    private let baseURL: String
    private let client: UpstreamClient
    private let ttl: (summary: Duration, missing: Duration, search: Duration)
    public let userAgent: String

    /// - Parameters:
    ///   - product: `Pier/0.1.0`.
    ///   - contact: `PIER_CONTACT` (a URL or an e-mail address); without one the `User-Agent` is the name and version only.
    public init(
        baseURL: String = Self.defaultURL, client: UpstreamClient, product: String, contact: String?,
        ttl: (summary: Duration, missing: Duration, search: Duration)
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
        self.ttl = ttl
        userAgent = UserAgent.identifying(product: product, contact: contact)
    }

    private func base(_ lang: String) -> String {
        baseURL.replacingOccurrences(of: "{lang}", with: lang)
    }

    func summaryURL(_ key: SummaryKey) -> String {
        "\(base(key.lang))/api/rest_v1/page/summary/\(key.title.addingPercentEncoding(withAllowedCharacters: .titleAllowed) ?? "")"
    }

    func openSearchURL(_ key: OpenSearchKey) -> String {
        "\(base(key.lang))/w/api.php?action=opensearch&search=\(URLEncoding.queryValue(key.search))&limit=\(key.limit)&namespace=0&format=json"
    }

    private var headers: [String: String] { ["Accept": "application/json", "User-Agent": userAgent] }

    /// The page's summary; a title Wikipedia does not have (`404`) or refuses as invalid (`400`, e.g. longer than
    /// 255 bytes) is a `404` answer to remember (its problem document kept).
    public func summary(_ key: SummaryKey) async throws -> UpstreamReply<StoredAnswer> {
        let response = try await client.get(summaryURL(key), headers: headers, accepting: [400, 403, 404, 429])
        if let refusal = Self.refusal(response) { return refusal }
        if response.status == 404 || response.status == 400 { return .answer(.fetched(.missing, body: response.body, ttl: ttl.missing)) }
        try WikipediaDocument.checkSummary(response.body)
        return .answer(.fetched(body: response.body, ttl: ttl.summary))
    }

    public func openSearch(_ key: OpenSearchKey) async throws -> UpstreamReply<StoredAnswer> {
        let response = try await client.get(openSearchURL(key), headers: headers, accepting: [403, 429])
        if let refusal = Self.refusal(response) { return refusal }
        try WikipediaDocument.checkOpenSearch(response.body)
        return .answer(.fetched(body: response.body, ttl: ttl.search))
    }

    /// `429`: slow down; `403`: Wikimedia blocked these requests (its answer to a missing or generic `User-Agent`).
    private static func refusal(_ response: UpstreamResponse) -> UpstreamReply<StoredAnswer>? {
        switch response.status {
        case 429:
            .throttled(message: "Wikipedia is rate-limiting this server (429)", detail: "429: Wikipedia is rate-limiting this server", retryAfter: response.retryAfter())
        case 403:
            .refused(
                message: "Wikipedia refused this server's requests",
                detail: "403: Wikimedia refused this server's requests (check PIER_CONTACT and the User-Agent policy)")
        default: nil
        }
    }
}

extension CharacterSet {
    /// What a title may hold unescaped in a path segment (no `/`, `?`, `#`, `%`).
    static let titleAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#%;"))
}
