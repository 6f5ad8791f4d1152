import UpstreamHTTP

/// Fetches MeteoNews' lake page the way a browser in a German-speaking locale would.
public struct MeteoNewsClient: Sendable {
    public static let defaultURL = "https://meteonews.ch/de/Cms/D121/seen-in-der-schweiz"

    private let url: String
    private let client: UpstreamClient

    public init(url: String = Self.defaultURL, client: UpstreamClient) {
        self.url = url
        self.client = client
    }

    /// The page's body and the URL it came from.
    public func page() async throws(UpstreamError) -> (url: String, body: [UInt8]) {
        (url, try await client.get(url, headers: Self.headers).body)
    }

    static let headers = [
        "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
        "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
        "Accept-Language": "de-CH,de;q=0.9,en;q=0.5",
        "Referer": "https://meteonews.ch/",
    ]
}
