/// One WebSocket frame (RFC 6455 §5.2), its payload unmasked: what the parser gives and the encoder writes.
public struct WebSocketFrame: Sendable, Equatable {
    public var fin: Bool
    public var opcode: WebSocketOpcode
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// A close frame: the code, then the reason (cut at 123 bytes on a character boundary, control frames carry 125).
    public static func close(_ code: WebSocketCloseCode, reason: String = "") -> WebSocketFrame {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reason = Substring(reason)
        while reason.utf8.count > 123 { reason.removeLast() }
        payload.append(contentsOf: reason.utf8)
        return WebSocketFrame(opcode: .close, payload: payload)
    }

    /// Appends the frame: a server's unmasked (`mask` `nil`), a client's masked with `mask`.
    public func encode(into out: inout [UInt8], mask: UInt32? = nil) {
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        let count = payload.count
        if count < 126 {
            out.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(count >> 8))
            out.append(UInt8(count & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        guard let mask else {
            out.append(contentsOf: payload)
            return
        }
        let key = [UInt8(mask >> 24), UInt8((mask >> 16) & 0xFF), UInt8((mask >> 8) & 0xFF), UInt8(mask & 0xFF)]
        out.append(contentsOf: key)
        for (index, byte) in payload.enumerated() { out.append(byte ^ key[index & 3]) }
    }

    /// The frame's bytes as a server sends them.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 10)
        encode(into: &out)
        return out
    }
}
