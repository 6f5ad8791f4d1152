import Markup

/// Why an FMI answer could not be used.
public enum FMIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// FMI answered with an `ows:ExceptionReport` (with status 200 or 400): its code and texts.
    case exceptionReport(code: String, texts: [String])
    /// The document's root is neither a feature collection nor an exception report.
    case unexpectedRoot(String)
    case unreadable(MarkupError)

    public var description: String {
        switch self {
        case let .exceptionReport(code, texts): "FMI refused the request (\(code)): \(texts.joined(separator: " / "))"
        case let .unexpectedRoot(name): "FMI answered a <\(name)> document, not a feature collection"
        case let .unreadable(error): "FMI's answer is unreadable: \(error)"
        }
    }
}
