import Glibc
import HTTPServer
import HTTPTesting
import XCTest

/// WebSockets through a real server on loopback (the conformance cases docs/internals/http-server.md lists): the handshake and
/// its refusals, messages both ways, fragments, control frames, the closing handshake, the rules a client breaks, a
/// reader that falls behind, idle sockets, the caps, shutdown and the metrics.
final class WebSocketServerTests: XCTestCase {
    func testTheHandshakeIsAcceptedWithTheRFCsAnswerAndRefusedAsItSays() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try WebSocketTestClient(port: server.port)
        XCTAssertEqual(client.handshake.header("Sec-WebSocket-Accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(client.handshake.header("Upgrade"), "websocket")
        XCTAssertEqual(client.handshake.header("Connection"), "Upgrade")
        XCTAssertNil(client.handshake.header("Content-Length"))
        XCTAssertNil(client.handshake.header("Sec-WebSocket-Extensions"), "permessage-deflate is not taken")

        func answer(_ head: String) throws -> RawResponse {
            let raw = try RawClient(port: server.port)
            try raw.send(head + "\r\n")
            return try raw.readResponse()
        }
        let valid = "GET /socket HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
        let key = "Sec-WebSocket-Key: \(WebSocketTestClient.key)\r\n"
        XCTAssertEqual(try answer(valid + key + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Extensions: permessage-deflate\r\n").status, 101)
        let old = try answer(valid + key + "Sec-WebSocket-Version: 8\r\n")
        XCTAssertEqual(old.status, 426)
        XCTAssertEqual(old.header("Sec-WebSocket-Version"), "13")
        XCTAssertEqual(try answer(valid + "Sec-WebSocket-Version: 13\r\n").status, 400, "no key")
        XCTAssertEqual(try answer(valid + "Sec-WebSocket-Key: c2hvcnQ=\r\nSec-WebSocket-Version: 13\r\n").status, 400, "a key of 5 bytes")
        XCTAssertEqual(try answer("GET /socket HTTP/1.1\r\nHost: t\r\n" + key + "Sec-WebSocket-Version: 13\r\n").status, 400, "no Upgrade")
        XCTAssertEqual(try answer("GET /socket HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\n" + key + "Sec-WebSocket-Version: 13\r\n").status, 400, "no Connection: Upgrade")
        XCTAssertEqual(try answer("GET /socket HTTP/1.0\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" + key + "Sec-WebSocket-Version: 13\r\n").status, 400)
        XCTAssertEqual(try answer("POST /socket HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n").status, 405)
        let refused = try answer("GET /socket?refuse=1 HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" + key + "Sec-WebSocket-Version: 13\r\n")
        XCTAssertEqual(refused.status, 401, "the route's own refusal")
        XCTAssertEqual(refused.bodyText, #"{"error":"no key"}"#)
    }

    func testMessagesFragmentsAndControlFramesBothWays() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try WebSocketTestClient(port: server.port)
        try client.send(text: "héllo")
        XCTAssertEqual(try client.readText(), "héllo")
        try client.send(WebSocketFrame(opcode: .binary, payload: [0, 1, 2, 255]))
        XCTAssertEqual(try client.read(), WebSocketFrame(opcode: .binary, payload: [0, 1, 2, 255]))
        // A text message in three fragments, "€" split across two of them, a ping between.
        let euro = Array("€".utf8)
        try client.send(WebSocketFrame(fin: false, opcode: .text, payload: Array("a".utf8) + euro.prefix(2)))
        try client.send(WebSocketFrame(opcode: .ping, payload: Array("p".utf8)))
        XCTAssertEqual(try client.read(), WebSocketFrame(opcode: .pong, payload: Array("p".utf8)), "answered between fragments")
        try client.send(WebSocketFrame(fin: false, opcode: .continuation, payload: Array(euro.suffix(1))))
        try client.send(WebSocketFrame(opcode: .continuation, payload: Array("b".utf8)))
        XCTAssertEqual(try client.readText(), "a€b")
        // Sent from another thread, through the loop.
        try client.send(text: "later")
        XCTAssertEqual(try client.readText(), "from a task")
        // 64 KB is the bound: a message of exactly that passes.
        let largest = String(repeating: "y", count: 64 * 1024)
        try client.send(text: largest)
        XCTAssertEqual(try client.readText(), largest)
    }

    func testOneMessageReachesEverySocketOnEveryLoop() throws {
        let server = try TestServer()  // two loops: the sockets land on both
        defer { server.stop() }
        let clients = try (0..<6).map { _ in try WebSocketTestClient(port: server.port) }
        XCTAssertTrue(TestServer.eventually { server.sockets.all.count == 6 })
        try clients[0].send(text: "all:to everyone")
        for client in clients { XCTAssertEqual(try client.readText(), "to everyone") }
        XCTAssertTrue(server.registry.render().contains(#"websocket_messages_total{direction="out"} 6"#))
    }

    func testTheClosingHandshakeEitherWay() throws {
        let server = try TestServer()
        defer { server.stop() }
        // The client closes: its code is echoed and the server closes the TCP connection.
        let leaving = try WebSocketTestClient(port: server.port)
        try leaving.send(WebSocketFrame.close(WebSocketCloseCode(rawValue: 4001), reason: "bye"))
        XCTAssertEqual(try leaving.readCloseCode(), 4001)
        XCTAssertTrue(leaving.raw.isClosedByServer())
        // No code: a close without one.
        let quiet = try WebSocketTestClient(port: server.port)
        try quiet.send(WebSocketFrame(opcode: .close, payload: []))
        XCTAssertEqual(try quiet.read(), WebSocketFrame(opcode: .close, payload: []))
        XCTAssertTrue(quiet.raw.isClosedByServer())
        // The route closes: its frame, then the client's answer ends the connection; messages after it are dropped.
        let closed = try WebSocketTestClient(port: server.port)
        try closed.send(text: "close")
        XCTAssertEqual(try closed.readCloseCode(), 1000)
        try closed.send(text: "dropped")
        try closed.send(WebSocketFrame.close(.normal))
        XCTAssertTrue(closed.raw.isClosedByServer(), "nothing more: the message after the close was not echoed")
        XCTAssertTrue(TestServer.eventually { server.closes.all.sorted() == [1000, 1005, 4001] }, "\(server.closes.all)")
    }

    func testFramesBreakingTheRulesCloseTheSocketWithTheirCodes() throws {
        let server = try TestServer()
        defer { server.stop() }
        func closeCode(_ frames: [(WebSocketFrame, UInt32?)]) throws -> UInt16? {
            let client = try WebSocketTestClient(port: server.port)
            for (frame, mask) in frames { try client.send(frame, mask: mask) }
            let code = try client.readCloseCode()
            XCTAssertTrue(client.raw.isClosedByServer(), "the connection ends after the close frame")
            return code
        }
        let text = WebSocketFrame(opcode: .text, payload: Array("x".utf8))
        XCTAssertEqual(try closeCode([(text, nil)]), 1002, "unmasked")
        XCTAssertEqual(try closeCode([(WebSocketFrame(opcode: .text, payload: [0xC3, 0x28]), 1)]), 1007, "not UTF-8")
        XCTAssertEqual(
            try closeCode([(WebSocketFrame(fin: false, opcode: .text, payload: [0xE2, 0x82]), 1), (WebSocketFrame(opcode: .continuation, payload: []), 1)]),
            1007, "ends inside a character across fragments")
        XCTAssertEqual(try closeCode([(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 64 * 1024 + 1)), 1)]), 1009)
        XCTAssertEqual(try closeCode([(WebSocketFrame(fin: false, opcode: .ping, payload: []), 1)]), 1002, "a fragmented ping")
        XCTAssertEqual(try closeCode([(WebSocketFrame(opcode: .pong, payload: [UInt8](repeating: 0, count: 126)), 1)]), 1002, "a long pong")
        XCTAssertEqual(try closeCode([(WebSocketFrame(opcode: .continuation, payload: []), 1)]), 1002, "nothing to continue")
        XCTAssertEqual(try closeCode([(WebSocketFrame(fin: false, opcode: .text, payload: []), 1), (text, 1)]), 1002, "a message inside a message")
        XCTAssertEqual(try closeCode([(WebSocketFrame.close(WebSocketCloseCode(rawValue: 1005)), 1)]), 1002, "a code only APIs use")
        XCTAssertEqual(try closeCode([(WebSocketFrame(opcode: .close, payload: [3]), 1)]), 1002, "a one-byte code")
    }

    func testAReaderThatFallsBehindIsClosedNotBufferedWithoutBound() throws {
        let server = try TestServer()
        defer { server.stop() }
        let slow = try WebSocketTestClient(port: server.port)
        try slow.send(text: "flood")
        // Not reading: the server queues at most its bound (beyond what the kernel's buffers took) and closes with 1008.
        XCTAssertTrue(TestServer.eventually { server.closes.all == [1008] }, "\(server.closes.all)")
        var code: UInt16?
        var received = 0
        while code == nil {
            let frame = try slow.read()
            if frame.opcode == .close { code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) } else { received += frame.payload.count }
        }
        XCTAssertEqual(code, 1008)
        XCTAssertLessThan(received, 10 * 1024 * 1024, "not every message was queued")
        // Others are served meanwhile.
        let other = try WebSocketTestClient(port: server.port)
        try other.send(text: "still here")
        XCTAssertEqual(try other.readText(), "still here")
    }

    func testAnIdleSocketIsClosedAndCapsRefuseWithTheirStatus() throws {
        let server = try TestServer { $0.webSockets.idleTimeout = .milliseconds(300); $0.webSockets.maxSocketsPerClient = 2; $0.webSockets.maxSockets = 3 }
        defer { server.stop() }
        let idle = try WebSocketTestClient(port: server.port)
        XCTAssertEqual(try idle.readCloseCode(), 1000, "idle")
        try idle.send(WebSocketFrame.close(.normal))
        XCTAssertTrue(idle.raw.isClosedByServer())
        XCTAssertTrue(TestServer.eventually { server.closes.all == [1000] })

        let first = try WebSocketTestClient(port: server.port, path: "/socket?client=198.51.100.7")
        let second = try WebSocketTestClient(port: server.port, path: "/socket?client=198.51.100.7")
        XCTAssertThrowsError(try WebSocketTestClient(port: server.port, path: "/socket?client=198.51.100.7")) { error in
            XCTAssertTrue("\(error)".contains("429"), "\(error)")
        }
        let third = try WebSocketTestClient(port: server.port, path: "/socket?client=203.0.113.9")
        XCTAssertThrowsError(try WebSocketTestClient(port: server.port, path: "/socket?client=192.0.2.1")) { error in
            XCTAssertTrue("\(error)".contains("503"), "\(error)")
        }
        // A socket that ends leaves the counts.
        try first.send(WebSocketFrame.close(.normal))
        XCTAssertEqual(try first.readCloseCode(), 1000)
        XCTAssertTrue(first.raw.isClosedByServer())
        XCTAssertTrue(TestServer.eventually { (try? WebSocketTestClient(port: server.port, path: "/socket?client=198.51.100.7")) != nil })
        withExtendedLifetime((second, third)) {}
    }

    /// A network's sockets share a cap (IPv4 /24, IPv6 /56), and sockets never take more than four fifths of the
    /// connections, whatever the socket cap says.
    func testNetworksAndTheConnectionCapBoundTheSockets() throws {
        let server = try TestServer { $0.webSockets.maxSocketsPerNetwork = 2; $0.maxConnections = 10; $0.webSockets.maxSockets = 100 }
        defer { server.stop() }
        let first = try WebSocketTestClient(port: server.port, path: "/socket?client=198.51.100.7")
        let second = try WebSocketTestClient(port: server.port, path: "/socket?client=198.51.100.8")
        XCTAssertThrowsError(try WebSocketTestClient(port: server.port, path: "/socket?client=198.51.100.9")) { error in
            XCTAssertTrue("\(error)".contains("429"), "another address of the same /24: \(error)")
        }
        let v6 = try (0..<2).map { try WebSocketTestClient(port: server.port, path: "/socket?client=2001:db8:0:\($0 + 1)::1") }
        XCTAssertThrowsError(try WebSocketTestClient(port: server.port, path: "/socket?client=2001:db8:0:7::1")) { error in
            XCTAssertTrue("\(error)".contains("429"), "another /64 of the same /56: \(error)")
        }
        var others: [WebSocketTestClient] = []
        for index in 0..<8 {
            do { others.append(try WebSocketTestClient(port: server.port, path: "/socket?client=203.0.\(index).9")) } catch {
                XCTAssertTrue("\(error)".contains("503"), "\(error)")
                break
            }
        }
        XCTAssertEqual(2 + v6.count + others.count, 8, "four fifths of 10 connections")
        XCTAssertEqual(try server.get("/hello").status, 200, "HTTP keeps the rest")
        withExtendedLifetime((first, second)) {}
    }

    /// Control frames are budgeted: pings past the rate close the socket (`1008`); a pong is owed, not queued, while
    /// the peer leaves output unread; only whole messages and pings keep a socket open, and a message begun must end
    /// in time.
    func testPingsPongsAndUnfinishedMessagesAreBounded() throws {
        let server = try TestServer {
            $0.webSockets.controlFrameBurst = 10; $0.webSockets.idleTimeout = .milliseconds(600); $0.webSockets.messageTimeout = .milliseconds(400)
        }
        defer { server.stop() }
        let pinger = try WebSocketTestClient(port: server.port)
        for index in 0..<30 { try pinger.send(WebSocketFrame(opcode: .ping, payload: Array("\(index)".utf8))) }
        var pongs = 0
        var code: UInt16?
        while code == nil {
            let frame = try pinger.read()
            if frame.opcode == .pong { pongs += 1 } else if frame.opcode == .close { code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) }
        }
        XCTAssertEqual(code, 1008, "too many pings")
        XCTAssertLessThanOrEqual(pongs, 11)

        // Pongs (unasked) keep nobody open: the idle timer runs.
        let ponger = try WebSocketTestClient(port: server.port)
        let started = Date()
        var closedWhilePonging = false
        for _ in 0..<15 where !closedWhilePonging {
            try ponger.send(WebSocketFrame(opcode: .pong, payload: []))
            Thread.sleep(forTimeInterval: 0.1)
            var ready = pollfd(fd: ponger.raw.fd, events: Int16(POLLIN), revents: 0)
            closedWhilePonging = Glibc.poll(&ready, 1, 0) == 1
        }
        XCTAssertTrue(closedWhilePonging, "closed while it still sent pongs")
        XCTAssertEqual(try ponger.readCloseCode(), 1000, "idle")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.4)

        // A message begun and kept open with empty continuations is closed at the message timeout, not held.
        let holder = try WebSocketTestClient(port: server.port)
        try holder.send(WebSocketFrame(fin: false, opcode: .text, payload: Array("begun".utf8)))
        for _ in 0..<10 {
            try holder.send(WebSocketFrame(fin: false, opcode: .continuation, payload: []))
            try holder.send(WebSocketFrame(opcode: .ping, payload: []))
            Thread.sleep(forTimeInterval: 0.1)
        }
        var holderCode: UInt16?
        while holderCode == nil {
            let frame = try holder.read()
            if frame.opcode == .close { holderCode = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) }
        }
        XCTAssertEqual(holderCode, 1008, "a message not finished in time")
    }

    func testShutdownSays1001ToEverySocketAndMetricsCountThem() throws {
        let server = try TestServer()
        let client = try WebSocketTestClient(port: server.port)
        try client.send(text: "one")
        XCTAssertEqual(try client.readText(), "one")
        let metrics = server.registry.render()
        XCTAssertTrue(metrics.contains("websocket_open_sockets 1"), metrics)
        XCTAssertTrue(metrics.contains(#"websocket_messages_total{direction="in"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"websocket_messages_total{direction="out"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"http_requests_total{route="/socket",status="101"} 1"#), metrics)
        let stopping = server.server
        let stopped = Thread { stopping.stop() }
        stopped.start()
        XCTAssertEqual(try client.readCloseCode(), 1001)
        try client.send(WebSocketFrame.close(.goingAway))
        XCTAssertTrue(client.raw.isClosedByServer())
        XCTAssertTrue(TestServer.eventually { server.closes.all == [1001] })
        XCTAssertTrue(server.registry.render().contains(#"websocket_closes_total{code="1001"} 1"#))
    }
}
