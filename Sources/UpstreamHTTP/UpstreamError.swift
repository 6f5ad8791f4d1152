
/// Why an upstream request gave no usable body. Carries the URL (never a token or a body).
public enum UpstreamError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case status(Int, url: String)
    case timedOut(url: String)
    case tooLarge(limit: Int, url: String)
    case tooManyRedirects(limit: Int, url: String)
    case transport(String, url: String)
    case cancelled(url: String)

    /// What went wrong without the URL — for public surfaces (`/health`), where an on-demand upstream's URL would
    /// show what a user asked (a point, a text, a stop).
    public var state: String {
        switch self {
        case .invalidURL: "invalid upstream URL"
        case let .status(code, _): "answered HTTP \(code)"
        case .timedOut: "did not answer in time"
        case let .tooLarge(limit, _): "sent more than \(limit) bytes"
        case let .tooManyRedirects(limit, _): "redirected more than \(limit) times"
        case let .transport(message, _): "could not be reached: \(message)"
        case .cancelled: "the request was cancelled"
        }
    }

    public var description: String {
        switch self {
        case let .invalidURL(url): "invalid upstream URL \(url)"
        case let .status(code, url): "\(url) answered HTTP \(code)"
        case let .timedOut(url): "\(url) did not answer in time"
        case let .tooLarge(limit, url): "\(url) sent more than \(limit) bytes"
        case let .tooManyRedirects(limit, url): "\(url) redirected more than \(limit) times"
        case let .transport(message, url): "\(url) could not be fetched: \(message)"
        case let .cancelled(url): "the request to \(url) was cancelled"
        }
    }
}
