import HTTPServer

/// A WebSocket client over ``RawClient`` for the server's and the features' tests: it sends what it is told, masked (or
/// not, to break the rules on purpose), and reads the server's frames as they are.
public final class WebSocketTestClient {
    public let raw: RawClient
    /// The `101`'s headers.
    public let handshake: RawResponse

    public static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    /// Connects and upgrades on `path`; throws unless the answer is `101`.
    public init(port: Int, path: String = "/socket", headers: String = "") throws {
        raw = try RawClient(port: port)
        try raw.send(
            "GET \(path) HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(Self.key)\r\n"
                + "Sec-WebSocket-Version: 13\r\n\(headers)\r\n")
        handshake = try raw.readResponse()
        guard handshake.status == 101 else { throw RawClient.Failure.malformed("status \(handshake.status): \(handshake.bodyText)") }
    }

    public func send(_ frame: WebSocketFrame, mask: UInt32? = 0x3712_A5C4) throws {
        var bytes: [UInt8] = []
        frame.encode(into: &bytes, mask: mask)
        try raw.send(bytes)
    }

    public func send(text: String) throws { try send(WebSocketFrame(opcode: .text, payload: Array(text.utf8))) }

    /// The next frame the server sends (server frames are unmasked).
    public func read() throws -> WebSocketFrame {
        let head = try raw.read(2)
        guard head[1] & 0x80 == 0 else { throw RawClient.Failure.malformed("a server frame is masked") }
        guard let opcode = WebSocketOpcode(rawValue: head[0] & 0x0F) else { throw RawClient.Failure.malformed("opcode \(head[0] & 0x0F)") }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            let extended = try raw.read(2)
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            length = try raw.read(8).reduce(0) { $0 << 8 | Int($1) }
        }
        return WebSocketFrame(fin: head[0] & 0x80 != 0, opcode: opcode, payload: try raw.read(length))
    }

    /// The next frame's text, if it is a text frame.
    public func readText() throws -> String? {
        let frame = try read()
        return frame.opcode == .text ? String(decoding: frame.payload, as: UTF8.self) : nil
    }

    /// The close code of the next frame, if it is a close frame.
    public func readCloseCode() throws -> UInt16? {
        let frame = try read()
        guard frame.opcode == .close, frame.payload.count >= 2 else { return nil }
        return UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
    }
}
