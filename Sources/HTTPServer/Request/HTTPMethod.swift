/// A request method. Any token is a valid method on the wire; the router decides which ones a path accepts.
public struct HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    // Computed, not stored: a stored static is a global behind a lazy initialisation check on every request; a
    // method's name is a small string, made without allocating.
    public static var get: HTTPMethod { HTTPMethod("GET") }
    public static var head: HTTPMethod { HTTPMethod("HEAD") }
    public static var post: HTTPMethod { HTTPMethod("POST") }
    public static var put: HTTPMethod { HTTPMethod("PUT") }
    public static var delete: HTTPMethod { HTTPMethod("DELETE") }
    public static var patch: HTTPMethod { HTTPMethod("PATCH") }
    public static var options: HTTPMethod { HTTPMethod("OPTIONS") }

    /// The method a request line names (a token, checked by the parser).
    init(bytes: UnsafeBufferPointer<UInt8>) {
        // The methods every request uses are told by their first byte and length, without decoding.
        switch (bytes.count, bytes.first) {
        case (3, UInt8(ascii: "G")) where bytes[1] == UInt8(ascii: "E") && bytes[2] == UInt8(ascii: "T"): self = .get
        case (4, UInt8(ascii: "H")) where HeadParser.equalExactly(bytes, "HEAD"): self = .head
        case (4, UInt8(ascii: "P")) where HeadParser.equalExactly(bytes, "POST"): self = .post
        default: self.init(String(decoding: bytes, as: UTF8.self))
        }
    }

    public var description: String { rawValue }
}
