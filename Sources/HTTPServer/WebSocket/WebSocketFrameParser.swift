/// An incremental, strict parser of the frames a client sends (RFC 6455 §5): feed it an ``InputBuffer`` as bytes
/// arrive, split anywhere; each call to ``next(from:)`` gives one frame, asks for more, or says why the connection
/// fails (the close code to send). A frame is consumed only once whole, so nothing is kept between calls but the
/// buffer, and a frame longer than the bound is refused from its header, before its payload arrives.
///
/// Refused (`1002`): a set reserved bit (no extension is negotiated), a reserved opcode, an unmasked frame, a control
/// frame fragmented or longer than 125 bytes, a length not written in the fewest bytes or with its top bit set.
/// Refused (`1009`): a frame longer than `maxPayloadBytes`. What it accepts re-encodes to the same bytes
/// (``WebSocketFrame/encode(into:mask:)`` with the frame's mask): the fuzz target's property.
public struct WebSocketFrameParser: Sendable {
    public enum Event: Sendable, Equatable {
        /// A whole frame, unmasked; `mask`: the key it came with.
        case frame(WebSocketFrame, mask: UInt32)
        case needMore
        /// The connection fails: close with `code`, saying `reason`.
        case error(WebSocketCloseCode, String)
    }

    public let maxPayloadBytes: Int

    public init(maxPayloadBytes: Int) {
        self.maxPayloadBytes = maxPayloadBytes
    }

    public func next(from buffer: inout InputBuffer) -> Event {
        guard buffer.count >= 2 else { return .needMore }
        let first = buffer[0], second = buffer[1]
        guard first & 0x70 == 0 else { return .error(.protocolError, "reserved bits set without an extension") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else { return .error(.protocolError, "reserved opcode") }
        let fin = first & 0x80 != 0
        guard second & 0x80 != 0 else { return .error(.protocolError, "a client's frames must be masked") }
        var length = Int(second & 0x7F)
        var headerBytes = 2
        if length == 126 {
            guard buffer.count >= 4 else { return .needMore }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            guard length >= 126 else { return .error(.protocolError, "a length not written in the fewest bytes") }
            headerBytes = 4
        } else if length == 127 {
            guard buffer.count >= 10 else { return .needMore }
            guard buffer[2] & 0x80 == 0 else { return .error(.protocolError, "a length with its top bit set") }
            var long: UInt64 = 0
            for index in 2..<10 { long = long << 8 | UInt64(buffer[index]) }
            guard long > 0xFFFF else { return .error(.protocolError, "a length not written in the fewest bytes") }
            guard long <= UInt64(maxPayloadBytes) else { return .error(.messageTooBig, "a frame longer than \(maxPayloadBytes) bytes") }
            length = Int(long)
            headerBytes = 10
        }
        if opcode.isControl {
            guard fin else { return .error(.protocolError, "a fragmented control frame") }
            guard length <= 125 else { return .error(.protocolError, "a control frame longer than 125 bytes") }
        }
        guard length <= maxPayloadBytes else { return .error(.messageTooBig, "a frame longer than \(maxPayloadBytes) bytes") }
        guard buffer.count >= headerBytes + 4 + length else { return .needMore }
        let key = (buffer[headerBytes], buffer[headerBytes + 1], buffer[headerBytes + 2], buffer[headerBytes + 3])
        let mask = UInt32(key.0) << 24 | UInt32(key.1) << 16 | UInt32(key.2) << 8 | UInt32(key.3)
        let start = headerBytes + 4
        let payload = buffer.withUnsafeBytes { bytes in
            withUnsafeBytes(of: key) { keys in
                [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
                    for index in 0..<length { out[index] = bytes[start + index] ^ keys[index & 3] }
                    initialized = length
                }
            }
        }
        buffer.consume(start + length)
        return .frame(WebSocketFrame(fin: fin, opcode: opcode, payload: payload), mask: mask)
    }
}
