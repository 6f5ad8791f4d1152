import HTTPServer

// A client's WebSocket frames (WebSocketFrameParser) and messages (WebSocketMessages), as the server reads them from
// its socket. Properties: whatever the parser accepts re-encodes, with its mask, to exactly the bytes it consumed
// (split anywhere, the same frames come out); nothing it accepts exceeds the bounds; a message is only ever text
// that is valid UTF-8.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parser = WebSocketFrameParser(maxPayloadBytes: 4096)
    var whole = InputBuffer(bytes)
    var messages = WebSocketMessages(maxMessageBytes: 4096)
    var frames: [WebSocketFrame] = []
    var consumed = 0
    while case .frame(let frame, let mask) = parser.next(from: &whole) {
        var again: [UInt8] = []
        frame.encode(into: &again, mask: mask)
        precondition(Array(bytes[consumed..<(consumed + again.count)]) == again, "a frame does not re-encode to its bytes")
        consumed += again.count
        precondition(frame.payload.count <= 4096, "a frame past the bound")
        precondition(!frame.opcode.isControl || (frame.fin && frame.payload.count <= 125), "a control frame past the rules")
        frames.append(frame)
        if case .text(let text)? = messages.receive(frame) {
            precondition(text.utf8.count <= 4096, "a message past the bound")
            precondition(String(validating: Array(text.utf8), as: UTF8.self) == text, "text that is not UTF-8")
        }
    }
    // The same bytes in two pieces give the same frames.
    var split = InputBuffer(Array(bytes.prefix(size / 2)))
    var again: [WebSocketFrame] = []
    func drain() {
        while case .frame(let frame, _) = parser.next(from: &split) { again.append(frame) }
    }
    drain()
    split.append(contentsOf: bytes.dropFirst(size / 2))
    drain()
    precondition(again == frames, "split input parsed differently")
    return 0
}
