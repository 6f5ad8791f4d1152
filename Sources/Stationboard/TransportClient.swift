import Feature
import Foundation
import OnDemand
import StationboardFormat
import UpstreamHTTP

/// transport.opendata.ch's `/v1/stationboard`: `GET {base}/stationboard?id=…&limit=…&date=…`.
public struct TransportClient: Sendable {
    public static let defaultURL = "https://transport.opendata.ch/v1"

    /// What the upstream said.
    private let baseURL: String
    private let client: UpstreamClient

    public init(baseURL: String = Self.defaultURL, client: UpstreamClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
    }

    public func url(for query: StationboardQuery) -> String {
        "\(baseURL)/stationboard?\(query.upstreamQuery)"
    }

    /// The board for `query`; a failed transfer or another status is ``UpstreamError``, an answer that is not
    /// a stationboard is ``StationboardDocument/Problem``.
    public func stationboard(_ query: StationboardQuery) async throws -> UpstreamReply<StationboardSource.Board> {
        let response = try await client.get(url(for: query), headers: Self.headers, accepting: [404, 429])
        switch response.status {
        case 404: return .answer(.unknownStation)
        case 429:
            // Asking again before `Retry-After` seconds (when it said) is unwelcome.
            return .throttled(message: "transport.opendata.ch is rate-limiting (429)", detail: "429 Too Many Requests", retryAfter: response.retryAfter())
        default:
            // An answer whose `station` is null is an unknown station too.
            let document = try StationboardDocument(parsing: response.body)
            return .answer(document.stationID == nil ? .unknownStation : .board(document))
        }
    }

    static let headers = [
        "Accept": "application/json",
        "User-Agent": "Pier/0.1 (ferry data for mobile apps; answers cached and shared)",
    ]
}
