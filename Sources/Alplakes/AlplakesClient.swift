import AlplakesFormat
import Foundation
import UpstreamHTTP

/// Alplakes' 1D Simstrat API (Eawag), the two requests the Next Wave app makes per lake.
public struct AlplakesClient: Sendable {
    public static let defaultURL = "https://alplakes-api.eawag.ch"

    private let baseURL: String
    private let client: UpstreamClient

    public init(baseURL: String = Self.defaultURL, client: UpstreamClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
    }

    /// The temperature profile nearest `time`.
    public func profile(_ lake: String, at time: Date) async throws -> AlplakesProfile {
        let url = "\(baseURL)/simulations/1d/profile/simstrat/\(lake)/\(AlplakesTime.path(time))"
        let response = try await client.get(url, headers: Self.headers)
        return try AlplakesProfile(parsing: response.body)
    }

    /// The surface (depth 0) series from `start` to `end`.
    public func surface(_ lake: String, from start: Date, to end: Date) async throws -> AlplakesSeries {
        let url = "\(baseURL)/simulations/1d/point/simstrat/\(lake)/\(AlplakesTime.path(start))/\(AlplakesTime.path(end))/0"
        let response = try await client.get(url, headers: Self.headers)
        return try AlplakesSeries(parsing: response.body)
    }

    static let headers = [
        "Accept": "application/json",
        "User-Agent": "Pier/0.1 (lake temperatures for the Next Wave app; fetched hourly for every user, one lake at a time)",
    ]
}
