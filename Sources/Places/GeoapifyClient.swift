import Feature
import Foundation
import OnDemand
import Parsing
import PlacesFormat
import SharedAnswers
import UpstreamHTTP

/// Geoapify's Places (`GET {base}/v2/places`) and Geocoding (`GET {base}/v1/geocode/search`) APIs. The key
/// travels as the `apiKey` query parameter (Geoapify's only way): ``UpstreamClient`` redacts it from every
/// error and capture, and this type never logs the URLs it builds.
public struct GeoapifyClient: Sendable {
    public static let defaultURL = "https://api.geoapify.com"

    private let baseURL: String
    private let key: String
    private let client: UpstreamClient
    private let ttl: (places: Duration, geocode: Duration)
    private let headers: [String: String]

    public init(baseURL: String = Self.defaultURL, key: String, client: UpstreamClient, product: String, ttl: (places: Duration, geocode: Duration)) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.key = key
        self.client = client
        self.ttl = ttl
        headers = ["Accept": "application/json", "User-Agent": "\(product) (places for mobile apps; answers cached and shared)"]
    }

    func placesURL(_ key: PlacesKey) -> String {
        let circle = "circle:\(PlacesKey.degrees(key.longitudeE5)),\(PlacesKey.degrees(key.latitudeE5)),\(key.parameters.radius)"
        return "\(baseURL)/v2/places?categories=\(key.parameters.categoryList)&filter=\(circle)"
            + "&limit=\(key.parameters.limit)&lang=\(key.parameters.lang)&apiKey=\(encodedKey)"
    }

    func geocodeURL(_ key: GeocodeKey) -> String {
        "\(baseURL)/v1/geocode/search?text=\(URLEncoding.queryValue(key.text))&lang=\(key.lang)&apiKey=\(encodedKey)"
    }

    private var encodedKey: String { URLEncoding.queryValue(key) }

    /// Places around the key's point, cleaned (``PlacesCollection``).
    public func places(_ key: PlacesKey) async throws -> (answer: UpstreamReply<StoredAnswer>, dropped: [PlacesCollection.Dropped]) {
        try await answer(placesURL(key), places: true, ttl: ttl.places)
    }

    /// The geocoding search for the key's text.
    public func geocode(_ key: GeocodeKey) async throws -> UpstreamReply<StoredAnswer> {
        try await answer(geocodeURL(key), places: false, ttl: ttl.geocode).answer
    }

    /// `200` is checked and cleaned; `400` (Geoapify refused what was asked, e.g. a category it does not know)
    /// is remembered for an hour and answered `400` with Geoapify's message; `401`/`403` mean the key is
    /// refused; `429` throttled. Decided from the status, never the message.
    private func answer(_ url: String, places: Bool, ttl: Duration) async throws -> (answer: UpstreamReply<StoredAnswer>, dropped: [PlacesCollection.Dropped]) {
        let response = try await client.get(url, headers: headers, accepting: [400, 401, 403, 429])
        switch response.status {
        case 400:
            return (.answer(.fetched(.refused, body: Self.message(response.body), ttl: .seconds(3600))), [])
        case 401, 403:
            return (.refused(message: "Geoapify refused this server's requests", detail: "\(response.status): Geoapify refused this server's key"), [])
        case 429:
            return (.throttled(message: "Geoapify is rate-limiting this server (429)", detail: "429: Geoapify is rate-limiting this server", retryAfter: response.retryAfter()), [])
        default:
            let collection = try PlacesCollection(parsing: response.body, places: places)
            return (.answer(.fetched(body: collection.body, ttl: ttl)), collection.dropped)
        }
    }

    /// Geoapify's error message (`{"message": …}`), at most 200 characters, as JSON text; `""` without one.
    static func message(_ body: [UInt8]) -> [UInt8] {
        let message = (try? JSONScanner.parse(body))?["message"]?.string ?? ""
        return Array(String(message.prefix(200)).utf8)
    }
}
