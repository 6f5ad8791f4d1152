import Foundation
import HTTPServer

/// Geoapify: places around any point are the Nürnberg fixture; a geocoding search for Nürnberg is the geocoding
/// fixture, any other text finds nothing; `400`, `401` and `429` with Geoapify's own documents.
struct GeoapifyDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.geoapify
    let paths = ["/v2/places", "/v1/geocode/search"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_GEOAPIFY_URL": server.geoapifyURL] }
    let unlimited = [
        "PIER_GEOAPIFY_KEY": "double-key", "PIER_GEOAPIFY_REQUESTS_PER_SECOND": "1000", "PIER_GEOAPIFY_BURST": "1000", "PIER_GEOAPIFY_CLIENT_SHARE": "1",
        "PIER_GEOAPIFY_CREDITS_PER_DAY": "100000000",
    ]
    private let places: [UInt8]
    private let geocode: [UInt8]
    private let errors: [Int: [UInt8]]

    init() throws {
        places = try Fixtures.bytes("geoapify", "places-nuernberg.json")
        geocode = try Fixtures.bytes("geoapify", "geocode-nuernberg.json")
        errors = [
            400: try Fixtures.bytes("geoapify", "400-top-level-category.json"), 401: try Fixtures.bytes("geoapify", "401.json"),
            429: try Fixtures.bytes("geoapify", "429.json"),
        ]
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        let json = "application/json; charset=utf-8"
        if request.path.hasSuffix("/v2/places") { return Self.json(places, contentType: json) }
        let found = (request.query["text"] ?? "").lowercased().contains("nürnberg")
        return Self.json(found ? geocode : Array(#"{"type":"FeatureCollection","features":[]}"#.utf8), contentType: json)
    }

    func error(status: Int) -> HTTPResponse? { Self.recordedError(errors, status: status) }
}

extension FixtureUpstream.Upstream {
    public static let geoapify = Self("geoapify")
}

extension FixtureUpstream {
    public var geoapifyURL: String { baseURL }
}
