import Parsing

/// What `POST /v1/cruise-import` carries: `{"text": "…"}`, the pasted confirmation. Checked before anything else and
/// before any upstream call: JSON, an object, `text` a string that is not blank and at most ``maximumCharacters``.
public struct CruiseImportRequest: Equatable, Sendable {
    public var text: String

    /// Characters — Unicode scalars, as JSON Schema's `maxLength` counts them, not bytes: a German confirmation's umlauts
    /// count once. A long confirmation with its terms runs to about 12,000; Gemini's input allows far more, but every
    /// character is paid for and the extraction needs only the booking's part.
    public static let maximumCharacters = 20_000
    /// The body is refused unread past this: a character written as JSON takes at most 12 bytes (a surrogate pair of
    /// `\u` escapes), and the object around it a little more.
    public static let maximumBytes = maximumCharacters * 12 + 1024

    /// Why a request is refused (`400`, its words the route's).
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    public init(text: String) {
        self.text = text
    }

    public init(body: [UInt8]) throws(Problem) {
        guard body.count <= Self.maximumBytes else {
            throw Problem(reason: "the body is larger than \(Self.maximumBytes) bytes (text may hold at most \(Self.maximumCharacters) characters)")
        }
        let root: JSONNode
        do { root = try JSONScanner.parse(body) } catch { throw Problem(reason: "the body is not JSON: send {\"text\": \"…\"}") }
        guard root.isObject else { throw Problem(reason: "the body is not an object: send {\"text\": \"…\"}") }
        guard let member = root["text"] else { throw Problem(reason: "text is required") }
        guard let text = member.string else { throw Problem(reason: "text must be a string") }
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { throw Problem(reason: "text is empty") }
        guard text.unicodeScalars.count <= Self.maximumCharacters else { throw Problem(reason: "text is longer than \(Self.maximumCharacters) characters") }
        self.text = text
    }
}
