/// What a document an upstream sent is called in a problem's sentence (`the stationboard answer`): each checked
/// document names itself once, and its ``DocumentProblem`` says the rest.
public protocol NamedDocument {
    static var documentName: String { get }
}

/// What is wrong with an upstream's answer, the one way every checked document says it: not JSON at all, or JSON of a
/// shape the parser does not know, in a sentence that names the document (`the stationboard answer has an unexpected
/// shape: no stationboard array`). The answer is logged and captured, never stored.
public struct DocumentProblem<Document: NamedDocument>: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case notJSON
        case unexpectedShape
    }

    public let kind: Kind
    /// What the parser found (`not JSON at byte 0: …`, `no list array`).
    public let reason: String

    /// Not JSON at all (`reason`: the scanner's words).
    public static func notJSON(_ reason: String) -> Self { Self(kind: .notJSON, reason: reason) }

    /// JSON, but not of the shape expected.
    public static func unexpectedShape(_ reason: String) -> Self { Self(kind: .unexpectedShape, reason: reason) }

    public var description: String {
        switch kind {
        case .notJSON: "\(Document.documentName) is \(reason)"
        case .unexpectedShape: "\(Document.documentName) has an unexpected shape: \(reason)"
        }
    }
}
