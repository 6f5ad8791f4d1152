import Foundation
import Logging
import METNorwayFormat
import Parsing
import UpstreamHTTP

/// MET Norway's Locationforecast 2.0 (`compact`), asked as its terms require (metno/weatherapi-docs: TermsOfService,
/// HowTO, StatusCodes): an identifying `User-Agent` (`Pier/<version> (<PIER_CONTACT>)`), at most four decimals,
/// `If-Modified-Since` with exactly the `Last-Modified` received, gzip accepted (the upstream client decodes it).
/// When not to ask — before `Expires`, while throttled — is the caller's (``Answer/expires``, ``METNorwayError``).
public struct METNorwayClient: Sendable {
    public static let defaultURL = "https://api.met.no/weatherapi/locationforecast/2.0/compact"
    /// Used when MET sends no `Expires` (it always does: about half an hour after `Last-Modified`).
    static let defaultLifetime: TimeInterval = 1800

    public enum Answer: Sendable {
        case forecast(METNorwayForecast, expires: Date, lastModified: String?)
        /// `304`: the copy held still stands, until the new `expires`.
        case notModified(expires: Date)
    }

    public let url: String
    public let userAgent: String
    private let client: UpstreamClient
    private let logger = Logger(label: "pier.metno")

    /// - Parameter userAgent: ``UserAgent/identifying(product:contact:)`` with `PIER_CONTACT`.
    public init(url: String = defaultURL, userAgent: String, client: UpstreamClient) {
        self.url = url
        self.userAgent = userAgent
        self.client = client
    }

    /// The request's URL: the point rounded to four decimals (more defeats MET's cache and, for newer products, is `403`).
    public func requestURL(latitude: Double, longitude: Double) -> String {
        "\(url)?lat=\(String(format: "%.4f", latitude))&lon=\(String(format: "%.4f", longitude))"
    }

    public func forecast(latitude: Double, longitude: Double, lastModified: String?, now: Date = Date()) async throws -> Answer {
        var headers = ["User-Agent": userAgent, "Accept": "application/json"]
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        let response = try await client.get(requestURL(latitude: latitude, longitude: longitude), headers: headers, accepting: [203, 304, 403, 404, 422, 429])
        let expires = response.headers["expires"].flatMap(HTTPDate.parse) ?? now.addingTimeInterval(Self.defaultLifetime)
        switch response.status {
        case 304:
            return .notModified(expires: expires)
        case 429:
            throw METNorwayError.throttled(retryAfter: response.retryAfter(now: now))
        case 403:
            throw METNorwayError.refused
        case 404, 422:
            throw METNorwayError.noData(status: response.status)
        case 203:
            logger.error("MET Norway says this Locationforecast version is deprecated and will be shut down (203): update Pier's MET Norway client")
        default:
            break
        }
        return .forecast(try METNorwayReader.read(response.body), expires: expires, lastModified: response.headers["last-modified"])
    }
}
