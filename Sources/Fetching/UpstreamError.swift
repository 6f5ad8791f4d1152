/// Why an upstream request gave no usable body. Carries the URL (never a token or a body).
public enum UpstreamError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case status(Int, url: String)
    case timedOut(url: String)
    case tooLarge(limit: Int, url: String)
    case tooManyRedirects(limit: Int, url: String)
    case transport(String, url: String)
    case cancelled(url: String)

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
