/// Why a document could not be read or queried. Never carries the document itself, only its size.
public enum MarkupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Zero bytes, or only whitespace.
    case empty
    /// Larger than the caller's limit; refused before parsing.
    case tooLarge(bytes: Int, limit: Int)
    /// Bytes that are not markup at all (no tag anywhere, or binary data).
    case notMarkup(reason: String)
    /// libxml2 gave up (XML that is not well-formed); `message` is libxml2's first error.
    case malformed(message: String)
    /// An XPath expression libxml2 rejected.
    case invalidXPath(String)

    public var description: String {
        switch self {
        case .empty: "the document is empty"
        case let .tooLarge(bytes, limit): "the document has \(bytes) bytes, more than the limit of \(limit)"
        case let .notMarkup(reason): "the document is not markup: \(reason)"
        case let .malformed(message): "the document is malformed: \(message)"
        case let .invalidXPath(expression): "invalid XPath expression: \(expression)"
        }
    }
}
