import Foundation
import Parsing

/// A complete upstream answer with a 2xx status (or one the caller said it accepts).
public struct UpstreamResponse: Sendable {
    public var status: Int
    /// The body after content decoding (gzip is undone by libcurl).
    public var body: [UInt8]
    public var contentType: String?
    /// The response's header fields, names lower-cased.
    public var headers: [String: String]

    public init(status: Int, body: [UInt8], contentType: String?, headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.contentType = contentType
        self.headers = headers
    }

    /// `Retry-After` in whole seconds (delta-seconds or an HTTP date), `nil` when absent or unreadable.
    public func retryAfter(now: Date = Date()) -> Int? {
        guard let text = headers["retry-after"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Int(text) { return max(0, seconds) }
        guard let date = HTTPDate.parse(text) else { return nil }
        return max(0, Int(date.timeIntervalSince(now).rounded(.up)))
    }
}
