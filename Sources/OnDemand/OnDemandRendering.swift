import Foundation

/// What a request is answered with, in the feature's terms; the engine makes the HTTP answer of it once
/// (``OnDemandResponse``) and keeps that in memory.
public struct OnDemandRendering: Sendable {
    public enum Body: Sendable {
        /// The answer: a JSON document.
        case document([UInt8])
        /// The upstream has nothing of that name (`404`): the message, and members kept beside it (Wikipedia's
        /// problem `type`, which clients test).
        case missing(String, members: [(name: String, value: String)] = [])
        /// The upstream refused this request as malformed (`400`), said in `message`.
        case refused(String)
    }

    public var body: Body
    /// Until when this rendering holds (its next departure leaves), if before its answer's freshness ends.
    public var until: Date?

    public init(_ body: Body, until: Date? = nil) {
        self.body = body
        self.until = until
    }

    public static func document(_ bytes: [UInt8], until: Date? = nil) -> Self { Self(.document(bytes), until: until) }
    public static func missing(_ message: String, members: [(name: String, value: String)] = []) -> Self { Self(.missing(message, members: members)) }
    public static func refused(_ message: String) -> Self { Self(.refused(message)) }

    /// Bytes the rendering takes in memory.
    var bytes: Int {
        switch body {
        case .document(let bytes): bytes.count
        case .missing(let message, let members): message.utf8.count + members.reduce(0) { $0 + $1.value.utf8.count }
        case .refused(let message): message.utf8.count
        }
    }
}
