/// Shaped like the Smart City Guide app's `WikipediaSummary` (described in Tests/Fixtures/wikipedia/README.md):
/// every member optional, but a present one must have its type; `namespace`, `thumbnail.source` and
/// `coordinates` have required members. Written from the README, not copied.
public struct AppWikipediaSummary: Decodable, Sendable {
    public struct Namespace: Decodable, Sendable {
        public let id: Int
        public let text: String
    }
    public struct Titles: Decodable, Sendable {
        public let canonical: String?
        public let normalized: String?
        public let display: String?
    }
    public struct Image: Decodable, Sendable {
        public let source: String
        public let width: Int?
        public let height: Int?
    }
    public struct ContentURLs: Decodable, Sendable {
        public struct Links: Decodable, Sendable {
            public let page: String?
            public let revisions: String?
            public let edit: String?
        }
        public let desktop: Links?
        public let mobile: Links?
    }
    public struct Coordinates: Decodable, Sendable {
        public let lat: Double
        public let lon: Double
    }
    public let type: String?
    public let title: String?
    public let displaytitle: String?
    public let wikibase_item: String?
    public let extract: String?
    public let extract_html: String?
    public let description: String?
    public let description_source: String?
    public let lang: String?
    public let dir: String?
    public let revision: String?
    public let tid: String?
    public let timestamp: String?
    public let pageid: Int?
    public let namespace: Namespace?
    public let titles: Titles?
    public let thumbnail: Image?
    public let originalimage: Image?
    public let content_urls: ContentURLs?
    public let coordinates: Coordinates?
}
