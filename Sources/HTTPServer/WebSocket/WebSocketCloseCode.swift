/// A close frame's status code (RFC 6455 §7.4), the reason a connection ends.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public static let normal = Self(rawValue: 1000)
    /// The server is going away (shutting down).
    public static let goingAway = Self(rawValue: 1001)
    public static let protocolError = Self(rawValue: 1002)
    /// What a handler is told when the peer's close frame had no code (never sent on the wire).
    public static let noStatus = Self(rawValue: 1005)
    public static let unsupportedData = Self(rawValue: 1003)
    /// Text that is not UTF-8.
    public static let invalidPayload = Self(rawValue: 1007)
    /// A rule of the endpoint broken (a reader that falls too far behind).
    public static let policyViolation = Self(rawValue: 1008)
    public static let messageTooBig = Self(rawValue: 1009)
    public static let internalError = Self(rawValue: 1011)

    /// Whether a peer may send this code in a close frame: the defined codes but 1004–1006 and 1015 (reserved, or meant
    /// for APIs only), and the registered and private ranges 3000–4999.
    public var isValidOnTheWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014: true
        case 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}
