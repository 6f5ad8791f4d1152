@testable import HTTPServer
import XCTest

/// The WebSocket state machines apart from I/O: the handshake's key, frames in any split, the rules a client's frames
/// break, messages over fragments, UTF-8 across them, and close frames.
final class WebSocketFrameTests: XCTestCase {
    private func masked(_ frame: WebSocketFrame, mask: UInt32 = 0x0102_0304) -> [UInt8] {
        var bytes: [UInt8] = []
        frame.encode(into: &bytes, mask: mask)
        return bytes
    }

    private func parse(_ bytes: [UInt8], max: Int = 1 << 16) -> [WebSocketFrameParser.Event] {
        let parser = WebSocketFrameParser(maxPayloadBytes: max)
        var buffer = InputBuffer(bytes)
        var events: [WebSocketFrameParser.Event] = []
        while true {
            let event = parser.next(from: &buffer)
            events.append(event)
            if case .frame = event { continue }
            return events
        }
    }

    func testTheAcceptValueIsTheRFCsExample() {
        XCTAssertEqual(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(SHA1.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined(), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(SHA1.hash([]).map { String(format: "%02x", $0) }.joined(), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    func testFramesOfEveryLengthParseInAnySplitAndReencodeToTheSameBytes() {
        for length in [0, 1, 125, 126, 127, 65535, 65536, 70_000] {
            let frame = WebSocketFrame(fin: length % 2 == 0, opcode: .binary, payload: (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let bytes = masked(frame)
            XCTAssertEqual(parse(bytes, max: 1 << 17).first, .frame(frame, mask: 0x0102_0304), "\(length)")
            // Byte by byte: nothing until the last byte, then the frame.
            let parser = WebSocketFrameParser(maxPayloadBytes: 1 << 17)
            var buffer = InputBuffer()
            for (index, byte) in bytes.enumerated() {
                buffer.append(contentsOf: [byte])
                let event = parser.next(from: &buffer)
                if index < bytes.count - 1 {
                    XCTAssertEqual(event, .needMore)
                } else {
                    guard case .frame(let parsed, let mask) = event else { return XCTFail("\(length): \(event)") }
                    var again: [UInt8] = []
                    parsed.encode(into: &again, mask: mask)
                    XCTAssertEqual(again, bytes, "re-encoded")
                }
            }
        }
    }

    func testFramesBreakingTheRulesFailWithTheirCodes() {
        func code(_ bytes: [UInt8], max: Int = 1 << 16) -> UInt16? {
            if case .error(let code, _)? = parse(bytes, max: max).last { return code.rawValue }
            return nil
        }
        var unmasked: [UInt8] = []
        WebSocketFrame(opcode: .text, payload: Array("hi".utf8)).encode(into: &unmasked)
        XCTAssertEqual(code(unmasked), 1002, "unmasked")
        XCTAssertEqual(code([0x81 | 0x40, 0x80, 0, 0, 0, 0]), 1002, "a reserved bit")
        XCTAssertEqual(code([0x83, 0x80, 0, 0, 0, 0]), 1002, "a reserved opcode")
        XCTAssertEqual(code(masked(WebSocketFrame(fin: false, opcode: .ping, payload: []))), 1002, "a fragmented ping")
        XCTAssertEqual(code(masked(WebSocketFrame(opcode: .ping, payload: [UInt8](repeating: 1, count: 126)))), 1002, "a long ping")
        XCTAssertEqual(code([0x82, 0x80 | 126, 0x00, 0x05, 0, 0, 0, 0, 1, 2, 3, 4, 5]), 1002, "a short length in two bytes")
        XCTAssertEqual(code([0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 1]), 1002, "a length's top bit")
        XCTAssertEqual(code([0x82, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]), 1002, "a short length in eight bytes")
        XCTAssertEqual(code(masked(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 101))), max: 100), 1009)
        // Too long is known from the header alone: nothing of the payload is waited for.
        XCTAssertEqual(code([0x82, 0x80 | 127, 0, 0, 0, 0, 0x7F, 0, 0, 0]), 1009)
    }

    func testMessagesJoinFragmentsInOrderWithControlFramesBetween() {
        var messages = WebSocketMessages(maxMessageBytes: 16)
        let euro = Array("€".utf8)  // three bytes, split across two fragments
        XCTAssertNil(messages.receive(WebSocketFrame(fin: false, opcode: .text, payload: Array("a".utf8) + euro.prefix(1))))
        XCTAssertEqual(messages.receive(WebSocketFrame(opcode: .ping, payload: [7])), .ping([7]))
        XCTAssertNil(messages.receive(WebSocketFrame(fin: false, opcode: .continuation, payload: Array(euro.dropFirst()))))
        XCTAssertEqual(messages.receive(WebSocketFrame(opcode: .continuation, payload: Array("b".utf8))), .text("a€b"))
        XCTAssertEqual(messages.receive(WebSocketFrame(opcode: .binary, payload: [0xFF])), .binary([0xFF]))

        func error(_ frames: [WebSocketFrame], max: Int = 16) -> UInt16? {
            var messages = WebSocketMessages(maxMessageBytes: max)
            for frame in frames {
                if case .error(let code, _)? = messages.receive(frame) { return code.rawValue }
            }
            return nil
        }
        XCTAssertEqual(error([WebSocketFrame(opcode: .continuation, payload: [])]), 1002, "nothing to continue")
        XCTAssertEqual(error([WebSocketFrame(fin: false, opcode: .text, payload: []), WebSocketFrame(opcode: .text, payload: [])]), 1002)
        XCTAssertEqual(error([WebSocketFrame(opcode: .text, payload: [0xC0, 0x80])]), 1007, "an overlong form")
        XCTAssertEqual(error([WebSocketFrame(opcode: .text, payload: [0xED, 0xA0, 0x80])]), 1007, "a surrogate")
        XCTAssertEqual(error([WebSocketFrame(opcode: .text, payload: euro.dropLast())]), 1007, "ends inside a character")
        XCTAssertEqual(error([WebSocketFrame(fin: false, opcode: .text, payload: [0xF5])]), 1007, "found in the first fragment")
        XCTAssertEqual(
            error([WebSocketFrame(fin: false, opcode: .binary, payload: Array(repeating: 0, count: 10)), WebSocketFrame(opcode: .continuation, payload: Array(repeating: 0, count: 7))]),
            1009, "the bound counts every fragment")
        XCTAssertNil(error([WebSocketFrame(opcode: .binary, payload: [0xC0, 0x80])]), "binary is not text")
    }

    func testCloseFramesAreReadAndCheckedAsTheRFCSays() {
        var messages = WebSocketMessages(maxMessageBytes: 16)
        XCTAssertEqual(messages.receive(WebSocketFrame(opcode: .close, payload: [])), .close(nil, ""))
        XCTAssertEqual(messages.receive(WebSocketFrame.close(.normal, reason: "bye")), .close(.normal, "bye"))
        XCTAssertEqual(messages.receive(WebSocketFrame.close(WebSocketCloseCode(rawValue: 4000))), .close(WebSocketCloseCode(rawValue: 4000), ""))
        for invalid: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            guard case .error(let code, _)? = messages.receive(WebSocketFrame.close(WebSocketCloseCode(rawValue: invalid))) else {
                return XCTFail("\(invalid) accepted")
            }
            XCTAssertEqual(code, .protocolError, "\(invalid)")
        }
        func failure(_ event: WebSocketMessages.Event?) -> WebSocketCloseCode? {
            if case .error(let code, _)? = event { return code }
            return nil
        }
        XCTAssertEqual(failure(messages.receive(WebSocketFrame(opcode: .close, payload: [3]))), .protocolError)
        XCTAssertEqual(failure(messages.receive(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xFF]))), .invalidPayload)
        // Our own close frames keep within a control frame's 125 bytes, cut between characters.
        let long = WebSocketFrame.close(.normal, reason: String(repeating: "é", count: 100))
        XCTAssertLessThanOrEqual(long.payload.count, 125)
        XCTAssertNotNil(String(validating: long.payload.dropFirst(2), as: UTF8.self))
    }

    func testTheUTF8ValidatorAgreesWithSwiftOnRandomBytesSplitAnywhere() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 0...12, using: &generator)
            let alphabet: [UInt8] = [0x41, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xED, 0xA0, 0xC0, 0xF4, 0x90, 0xFF]
            let bytes: [UInt8] = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            let split = Int.random(in: 0...length, using: &generator)
            var validator = UTF8Validator()
            let valid = validator.validate(bytes[..<split]) && validator.validate(bytes[split...]) && validator.isComplete
            XCTAssertEqual(valid, String(validating: bytes, as: UTF8.self) != nil, "\(bytes) split at \(split)")
        }
    }
}
