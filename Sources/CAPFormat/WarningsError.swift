import Markup

/// Why a warnings feed or a CAP document could not be used.
public enum WarningsError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(MarkupError)
    /// The document's root is not what was expected (`alert` for a CAP document, `rss` for the feed).
    case unexpectedRoot(String, expected: String)
    /// A required element is missing or unusable (`identifier`, `sent`, `msgType`).
    case missing(String)
    /// Not a Cancel, yet no `info` with a known severity, an onset and an expiry.
    case noUsableInfo(identifier: String)
    /// The feed lists more documents than Pier keeps (memory stays bounded whatever the feed's size).
    case tooManyDocuments(Int, limit: Int)
    /// A stored area PostGIS wrote in a form the in-memory index does not read (lookups then ask PostGIS).
    case unreadableArea

    public var description: String {
        switch self {
        case let .unreadable(error): "the warnings document is unreadable: \(error)"
        case let .unexpectedRoot(name, expected): "the warnings document's root is <\(name)>, not <\(expected)>"
        case let .missing(element): "the CAP document has no usable <\(element)>"
        case .noUsableInfo: "the CAP document has no info with a known severity, an onset and an expiry"
        case let .tooManyDocuments(count, limit): "the warnings feed lists \(count) documents, more than the \(limit) Pier keeps"
        case .unreadableArea: "a stored warning area is not the multipolygon text the in-memory index reads"
        }
    }
}
