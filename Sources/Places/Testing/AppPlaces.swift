/// Shaped like the Smart City Guide app's `GeoapifySearchResponse` (dengelma9898/smart-city-guide, described in
/// Tests/Fixtures/geoapify/README.md): `type` and `features` required; each feature's `type`, `properties` and
/// `geometry` (`type`, `coordinates` as `[Double]`) required; the properties all optional but typed. Written from
/// the README's table, not copied. The geocoding answer has the same envelope.
public struct AppPlaces: Decodable, Sendable {
    public struct Feature: Decodable, Sendable {
        public struct Geometry: Decodable, Sendable {
            public let type: String
            public let coordinates: [Double]
        }
        public struct Properties: Decodable, Sendable {
            public struct DataSource: Decodable, Sendable {
                public let sourcename: String?
                public let attribution: String?
                public let license: String?
                public let url: String?
            }
            public struct WikiAndMedia: Decodable, Sendable {
                public let wikidata: String?
                public let wikipedia: String?
            }
            public let name: String?
            public let formatted: String?
            public let address_line1: String?
            public let address_line2: String?
            public let city: String?
            public let postcode: String?
            public let country: String?
            public let country_code: String?
            public let place_id: String?
            public let categories: [String]?
            public let details: [String]?
            public let lon: Double?
            public let lat: Double?
            public let datasource: DataSource?
            public let wiki_and_media: WikiAndMedia?
        }
        public let type: String
        public let properties: Properties
        public let geometry: Geometry
    }
    public let type: String
    public let features: [Feature]
}
