import Feature
import Foundation
import LakeWeatherFormat
import OnDemand
import UpstreamHTTP

/// OpenWeather's 5-day / 3-hour forecast: `GET {base}/forecast?lat=…&lon=…&appid=…&units=metric`. The key
/// travels in the query (OpenWeather's only way); ``UpstreamClient`` redacts it from every error and capture,
/// and this type never logs the URL it builds.
public struct OpenWeatherClient: Sendable {
    public static let defaultURL = "https://api.openweathermap.org/data/2.5"

    private let baseURL: String
    private let key: String
    private let client: UpstreamClient

    public init(baseURL: String = Self.defaultURL, key: String, client: UpstreamClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.key = key
        self.client = client
    }

    /// The URL as it may be shown (the key redacted).
    public func displayURL(for cell: ForecastCell) -> String {
        URLRedaction.redact(url(for: cell))
    }

    private func url(for cell: ForecastCell) -> String {
        let key = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "\(baseURL)/forecast?lat=\(cell.text(cell.latitude))&lon=\(cell.text(cell.longitude))&appid=\(key)&units=metric"
    }

    /// The forecast for `cell`; another status or a failed transfer is ``UpstreamError``, an answer that is not a
    /// forecast ``ForecastDocument/Problem``.
    public func forecast(for cell: ForecastCell) async throws -> UpstreamReply<ForecastDocument> {
        let response = try await client.get(url(for: cell), headers: Self.headers, accepting: [401, 429])
        switch response.status {
        case 401:
            // The key is missing, wrong or not yet active.
            return .refused(message: "OpenWeather refused this server's key", detail: "401: OpenWeather refused the key")
        case 429:
            // The account is blocked for a while.
            return .throttled(message: "OpenWeather is rate-limiting this server (429)", detail: "429: OpenWeather blocked the account", retryAfter: response.retryAfter())
        default:
            return .answer(try ForecastDocument(parsing: response.body))
        }
    }

    static let headers = [
        "Accept": "application/json",
        "User-Agent": "Pier/0.1 (lake weather for mobile apps; answers cached and shared)",
    ]
}
