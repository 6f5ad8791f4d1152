/// What a WebSocket frame carries (RFC 6455 §5.2); the other eight values are reserved and fail the connection.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between a message's fragments.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}
