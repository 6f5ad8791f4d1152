import CAPFormat
import Foundation
import UpstreamHTTP

/// FMI's warnings feed and its CAP documents over HTTP.
///
/// The feed is asked conditionally (`If-None-Match` / `If-Modified-Since` with the validators of its last answer;
/// FMI does not document which it sends, so a `200` without any is fine too). Documents are fetched only from the
/// feed's own scheme and host: a link elsewhere is not followed (the feed decides what Pier asks, not where).
public struct WarningsClient: Sendable {
    public static let defaultFeedURL = "https://alerts.fmi.fi/cap/feed/rss_en-GB.rss"

    /// The feed's validators, sent back on the next reading.
    public struct Validators: Sendable, Equatable {
        public var etag: String?
        public var lastModified: String?

        var headers: [String: String] {
            var headers: [String: String] = [:]
            if let etag { headers["If-None-Match"] = etag }
            if let lastModified { headers["If-Modified-Since"] = lastModified }
            return headers
        }
    }

    public enum FeedAnswer: Sendable, Equatable {
        /// `304`: the publication read last time still stands.
        case unchanged
        case changed(links: [String], validators: Validators)
    }

    public let feedURL: String
    private let client: UpstreamClient

    public init(feedURL: String = defaultFeedURL, client: UpstreamClient) {
        self.feedURL = feedURL
        self.client = client
    }

    public func feed(validators: Validators?) async throws -> FeedAnswer {
        let response = try await client.get(feedURL, headers: validators?.headers ?? [:], accepting: [304])
        if response.status == 304 { return .unchanged }
        let links = try WarningFeedParser.links(response.body)
        return .changed(links: links, validators: Validators(etag: response.headers["etag"], lastModified: response.headers["last-modified"]))
    }

    public func document(_ url: String) async throws -> CAPAlert {
        try CAPParser.parse(try await client.get(url).body)
    }

    /// Whether `link` is on the feed's scheme, host and port.
    public func isOwn(_ link: String) -> Bool {
        guard let feed = URLComponents(string: feedURL), let target = URLComponents(string: link) else { return false }
        return target.scheme?.lowercased() == feed.scheme?.lowercased() && target.host?.lowercased() == feed.host?.lowercased() && target.port == feed.port
    }
}
