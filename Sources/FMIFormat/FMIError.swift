import Markup
import UpstreamHTTP

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

extension FMIError {
    /// FMI's answer to a `place=` it does not know ("No locations found for the place with the requested language!").
    public var isUnknownPlace: Bool {
        guard case .exceptionReport(_, let texts) = self else { return false }
        return texts.contains { $0.localizedCaseInsensitiveContains("no locations found") }
    }

    /// What went wrong, without the request (an exception report quotes the URL, and so the place asked for).
    public static func state(of error: any Error) -> String {
        switch error {
        case let fmi as FMIError:
            if case .exceptionReport(let code, _) = fmi { return "FMI refused the request (\(code))" }
            return "\(fmi)"
        case let upstream as UpstreamError: return upstream.state
        default: return "FMI's answer could not be used"
        }
    }
}
