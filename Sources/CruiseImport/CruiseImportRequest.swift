import Parsing

/// What `POST /v1/cruise-import` carries: `{"text": "…"}`, the pasted confirmation. Checked before anything else and
/// before any upstream call: JSON, an object, `text` a string that is not blank and at most ``maximumCharacters``.
public struct CruiseImportRequest: Equatable, Sendable {
    public var text: String

    /// Characters (not bytes: a German confirmation's umlauts count once). A long confirmation with its terms runs to
    /// about 12,000; Gemini 2.5's input allows far more, but every character is paid for and the extraction needs only
    /// the booking's part.
    public static let maximumCharacters = 20_000
    /// The body is refused unread past this (4 bytes a character at most, and the JSON around it).
    public static let maximumBytes = maximumCharacters * 4 + 1024

    /// Why a request is refused (`400`, its words the route's).
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    public init(text: String) {
        self.text = text
    }

    public init(body: [UInt8]) throws(Problem) {
        guard body.count <= Self.maximumBytes else { throw Problem(reason: "text is longer than \(Self.maximumCharacters) characters") }
        let root: JSONNode
        do { root = try JSONScanner.parse(body) } catch { throw Problem(reason: "the body is not JSON: send {\"text\": \"…\"}") }
        guard root.isObject else { throw Problem(reason: "the body is not an object: send {\"text\": \"…\"}") }
        guard let member = root["text"] else { throw Problem(reason: "text is required") }
        guard let text = member.string else { throw Problem(reason: "text must be a string") }
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { throw Problem(reason: "text is empty") }
        guard text.count <= Self.maximumCharacters else { throw Problem(reason: "text is longer than \(Self.maximumCharacters) characters") }
        self.text = text
    }
}
