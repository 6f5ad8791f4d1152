import Foundation
import Parsing
import UpstreamHTTP

/// Fetches ZSG's day fragments: `GET {base}?timestamp=<epoch ms of the date, 12:00 UTC>`, sent like the
/// site's own page script sends it, one request at a time with a pause between (the site is small).
public struct ZSGClient: Sendable {
    /// One day's answer, before parsing.
    public struct Page: Sendable {
        public var date: CalendarDate
        public var url: String
        public var body: [UInt8]
    }

    public static let defaultURL = "https://einsatzderschiffe.zsg.ch/schiffeinsatz"

    private let baseURL: String
    private let client: UpstreamClient
    private let pause: Duration

    /// Between the week's day pages: ZSG is asked one page at a time, politely.
    public static let defaultPause: Duration = .milliseconds(500)

    public init(baseURL: String = Self.defaultURL, client: UpstreamClient, pause: Duration = Self.defaultPause) {
        self.baseURL = baseURL
        self.client = client
        self.pause = pause
    }

    /// The URL for `date`. ZSG reads the calendar date out of `timestamp` and ignores `date=`.
    public func url(for date: CalendarDate) -> String {
        let milliseconds = Int64(date.noonUTC.timeIntervalSince1970) * 1000
        return baseURL + (baseURL.contains("?") ? "&" : "?") + "timestamp=\(milliseconds)"
    }

    /// Every date's page, in order; the first failure ends the run.
    public func pages(for dates: [CalendarDate]) async throws(UpstreamError) -> [Page] {
        var pages: [Page] = []
        for (index, date) in dates.enumerated() {
            if index > 0, pause > .zero {
                do { try await Task.sleep(for: pause) } catch { throw .cancelled(url: baseURL) }
            }
            let url = url(for: date)
            let response = try await client.get(url, headers: Self.headers)
            pages.append(Page(date: date, url: url, body: response.body))
        }
        return pages
    }

    static let headers = [
        "X-Requested-With": "XMLHttpRequest",
        "Referer": "https://einsatzderschiffe.zsg.ch/",
        "Accept": "text/html, */*; q=0.01",
        "User-Agent": "Pier/0.1 (ferry data for mobile apps; one request at a time)",
    ]
}
