/// Frames into messages (RFC 6455 §5.4–5.6): a text or binary message of one frame or of fragments in order, control
/// frames between them, a message bound in bytes over its fragments, text checked as UTF-8 across them (a character
/// may be split between two), and close frames read (a code and a UTF-8 reason, or nothing). A state machine apart
/// from I/O, like the frame parser it follows.
public struct WebSocketMessages: Sendable {
    /// What a frame completed.
    public enum Event: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        /// The peer closes: its code (`nil`: it sent none) and reason.
        case close(WebSocketCloseCode?, String)
        /// The connection fails: close with `code`, saying `reason`.
        case error(WebSocketCloseCode, String)
    }

    private struct Partial: Sendable {
        var isText: Bool
        var bytes: [UInt8]
        var utf8 = UTF8Validator()
    }

    public let maxMessageBytes: Int
    private var partial: Partial?

    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Whether a message has begun and not ended (its fragments so far are held).
    public var isAssembling: Bool { partial != nil }

    /// The event `frame` completes; `nil` when it was a fragment of a message still arriving.
    public mutating func receive(_ frame: WebSocketFrame) -> Event? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return Self.close(frame.payload)
        case .text, .binary:
            guard partial == nil else { return .error(.protocolError, "a new message before the last one's final fragment") }
            var started = Partial(isText: frame.opcode == .text, bytes: [])
            return append(frame, to: &started)
        case .continuation:
            guard var continued = partial else { return .error(.protocolError, "a continuation frame without a message to continue") }
            partial = nil
            return append(frame, to: &continued)
        }
    }

    private mutating func append(_ frame: WebSocketFrame, to message: inout Partial) -> Event? {
        guard message.bytes.count + frame.payload.count <= maxMessageBytes else {
            return .error(.messageTooBig, "a message longer than \(maxMessageBytes) bytes")
        }
        if message.isText {
            guard message.utf8.validate(frame.payload) else { return .error(.invalidPayload, "text that is not UTF-8") }
        }
        if message.bytes.isEmpty && frame.fin {
            message.bytes = frame.payload
        } else {
            message.bytes.append(contentsOf: frame.payload)
        }
        guard frame.fin else {
            partial = message
            return nil
        }
        guard message.isText else { return .binary(message.bytes) }
        guard message.utf8.isComplete else { return .error(.invalidPayload, "text that ends inside a character") }
        return .text(String(decoding: message.bytes, as: UTF8.self))
    }

    /// A close frame's payload: empty, or a valid code and a UTF-8 reason.
    private static func close(_ payload: [UInt8]) -> Event {
        guard !payload.isEmpty else { return .close(nil, "") }
        guard payload.count >= 2 else { return .error(.protocolError, "a close frame with a one-byte code") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnTheWire else { return .error(.protocolError, "close code \(code.rawValue) may not be sent") }
        var utf8 = UTF8Validator()
        let reason = payload.dropFirst(2)
        guard utf8.validate(reason), utf8.isComplete else { return .error(.invalidPayload, "a close reason that is not UTF-8") }
        return .close(code, String(decoding: reason, as: UTF8.self))
    }
}
