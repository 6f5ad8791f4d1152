import Feature
import Foundation
import NSWDeparturesFormat
import OnDemand
import Parsing
import UpstreamHTTP

/// Transport for NSW's Trip Planner API, `departure_mon`: every mode of one stop in one call, real time on,
/// rapidJSON. The key travels in the `Authorization` header (`apikey …`), never in the URL, so no URL,
/// error or capture can carry it.
public struct TfNSWClient: Sendable {
    public static let defaultURL = "https://api.transport.nsw.gov.au/v1/tp"

    private let baseURL: String
    private let authorization: [String: String]
    private let client: UpstreamClient

    public init(baseURL: String = Self.defaultURL, key: String, client: UpstreamClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        authorization = Self.headers.merging(["Authorization": "apikey \(key)"]) { $1 }
        self.client = client
    }

    /// The request as TfNSW documents it: `mode=direct` fills `stopEvents`, `TfNSWDM` and
    /// `departureMonitorMacro` turn real time on, `itdDate`/`itdTime` are Sydney local time.
    public func url(for query: DepartureQuery, now: Date) -> String {
        let (date, time) = query.upstreamTime(now: now)
        let stop = query.stop.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query.stop
        return "\(baseURL)/departure_mon?outputFormat=rapidJSON&coordOutputFormat=EPSG%3A4326&mode=direct&type_dm=stop&name_dm=\(stop)"
            + "&depArrMacro=dep&itdDate=\(date)&itdTime=\(time)&departureMonitorMacro=true&TfNSWDM=true"
    }

    /// The departures of `query`'s stop (every mode); another status or a failed transfer is ``UpstreamError``,
    /// an answer that is not a departure monitor ``DepartureMonitor/Problem``.
    public func departures(for query: DepartureQuery, now: Date = Date()) async throws -> UpstreamReply<DepartureMonitor> {
        let response = try await client.get(url(for: query, now: now), headers: authorization, accepting: [401, 403, 429])
        switch response.status {
        case 401:
            return Self.keyRefused(status: 401, detail: nil)
        case 403:
            // TfNSW's limits say which in `X-Error-Detail`; the body is not reliably documented.
            let detail = response.headers["x-error-detail"]
            switch detail?.lowercased() {
            case let text? where text.contains("rate"): return Self.overRate(retryAfter: response.retryAfter())
            case let text? where text.contains("quota"):
                // The key's calls for the day are spent: every caller of the key is refused until midnight in Sydney.
                let day = CalendarDate(now, in: DepartureQuery.sydney)
                return .refused(
                    message: "TfNSW's daily quota for this server is spent (it resets at midnight in Sydney)",
                    detail: "TfNSW: the key's daily quota is spent, until midnight in Sydney",
                    pause: max(1, day.adding(days: 1).start(in: DepartureQuery.sydney).timeIntervalSince(now).rounded(.up)))
            default: return Self.keyRefused(status: 403, detail: detail.map { String($0.prefix(120)) })
            }
        case 429:
            return Self.overRate(retryAfter: response.retryAfter())
        default:
            return .answer(try DepartureMonitor(parsing: response.body))
        }
    }

    /// `401`, or a `403` that is not about limits: the key is missing, wrong or inactive.
    private static func keyRefused(status: Int, detail: String?) -> UpstreamReply<DepartureMonitor> {
        .refused(message: "TfNSW refused this server's key", detail: "\(status): TfNSW refused this server's key\(detail.map { " (\($0))" } ?? "")")
    }

    /// `403` `Account Over Rate Limit`, or `429`: too many calls this second.
    private static func overRate(retryAfter: Int?) -> UpstreamReply<DepartureMonitor> {
        .throttled(message: "TfNSW is rate-limiting this server", detail: "TfNSW: over the key's rate limit", retryAfter: retryAfter)
    }

    static let headers = [
        "Accept": "application/json",
        "User-Agent": "Pier/0.1 (departures for mobile apps; answers cached and shared)",
    ]
}
