import Foundation
import HTTPServer

/// OpenWeather's 5-day forecast: the fixture written for the point nearest the one asked, as recorded (its dates
/// are the fixture's); `401` and `429` with OpenWeather's own documents.
struct OpenWeatherDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.openweather
    let paths = ["/data/2.5/forecast"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_OPENWEATHER_URL": server.openWeatherURL] }
    let unlimited = [
        "PIER_OPENWEATHER_KEY": "double-key", "PIER_OPENWEATHER_REQUESTS_PER_MINUTE": "100000", "PIER_OPENWEATHER_BURST": "100000",
        "PIER_OPENWEATHER_CLIENT_SHARE": "1",
    ]
    private let forecasts: [(latitude: Double, longitude: Double, body: [UInt8])]
    private let errors: [Int: [UInt8]]

    init() throws {
        forecasts = try [
            (47.3657, 8.5410, "forecast-zurich-2026-07-04.json"), (47.2253, 8.8147, "forecast-rapperswil-2026-11-23.json"),
            (46.5065, 6.6268, "forecast-ouchy-2026-11-23.json"),
        ].map { ($0.0, $0.1, try Fixtures.bytes("openweather", $0.2)) }
        errors = [401: try Fixtures.bytes("openweather", "401.json"), 429: try Fixtures.bytes("openweather", "429.json")]
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        let latitude = request.query["lat"].flatMap(Double.init) ?? 0, longitude = request.query["lon"].flatMap(Double.init) ?? 0
        let nearest = forecasts.min { hypot($0.latitude - latitude, $0.longitude - longitude) < hypot($1.latitude - latitude, $1.longitude - longitude) }
        return Self.json(nearest?.body ?? [], contentType: "application/json; charset=utf-8")
    }

    func error(status: Int) -> HTTPResponse? { Self.recordedError(errors, status: status) }
}

extension FixtureUpstream.Upstream {
    public static let openweather = Self("openweather")
}

extension FixtureUpstream {
    public var openWeatherURL: String { baseURL + "/data/2.5" }
}
