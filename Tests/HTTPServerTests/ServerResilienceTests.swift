import Glibc
import HTTPServer
import HTTPTesting
import XCTest

/// Timeouts, slow and hostile clients, load, the connection cap and graceful shutdown, over real sockets.
final class ServerResilienceTests: XCTestCase {
    func testSlowHeaderIsTimedOutWith408() throws {
        let server = try TestServer { $0.headerReadTimeout = .milliseconds(200) }
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n")
        // No sleep: the read blocks until the server's timer fires.
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 408)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertTrue(client.isClosedByServer())
    }

    func testSlowBodyIsTimedOut() throws {
        let server = try TestServer { $0.bodyReadTimeout = .milliseconds(200) }
        defer { server.stop() }
        let client = try server.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        XCTAssertEqual(try client.readResponse().status, 408)
    }

    func testIdleKeepAliveConnectionIsClosed() throws {
        let server = try TestServer { $0.idleTimeout = .milliseconds(200) }
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
        XCTAssertTrue(client.isClosedByServer(), "idle connection closed by the server")
        XCTAssertTrue(TestServer.eventually { server.server.openConnections == 0 })
    }

    func testClientThatNeverReadsIsDroppedWhileOthersAreServed() throws {
        let server = try TestServer { $0.writeTimeout = .milliseconds(300) }
        defer { server.stop() }
        let hog = try server.client()
        hog.shrinkReceiveBuffer()
        // 30 pipelined requests for 1 MiB each, never read: the server must stop reading from this client
        // (output high-water mark) and drop it after the write timeout, without stalling anyone else.
        try hog.send(String(repeating: "GET /big HTTP/1.1\r\nHost: t\r\n\r\n", count: 30))
        for i in 0..<50 {
            XCTAssertEqual(try server.get("/n?i=\(i)").bodyText, "n=\(i)")
        }
        XCTAssertTrue(TestServer.eventually { server.server.openConnections == 0 }, "the non-reading client is dropped")
    }

    func testThousandConcurrentConnectionsAreAllServed() throws {
        let server = try TestServer()
        defer { server.stop() }
        var clients: [RawClient] = []
        for _ in 0..<1000 { clients.append(try server.client()) }
        for (i, client) in clients.enumerated() {
            try client.send("GET /\(i % 2 == 0 ? "n" : "async")?i=\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
        }
        for (i, client) in clients.enumerated() {
            XCTAssertEqual(try client.readResponse().bodyText, "\(i % 2 == 0 ? "n" : "a")=\(i)")
        }
        XCTAssertEqual(server.server.openConnections, 1000)
    }

    func testConnectionsOverTheCapArePolitelyRefused() throws {
        let server = try TestServer { $0.maxConnections = 5 }
        defer { server.stop() }
        var held: [RawClient] = []
        for _ in 0..<5 {
            let client = try server.client()
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try client.readResponse().status, 200)
            held.append(client)
        }
        let extra = try server.client()
        let refused = try extra.readResponse()
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertTrue(refused.bodyText.contains("connection limit"))
        // Once a slot frees up, new connections are served again.
        held.removeLast()
        XCTAssertTrue(TestServer.eventually { server.server.openConnections == 4 })
        XCTAssertEqual(try server.get("/hello").status, 200)
    }

    func testShutdownFinishesInFlightRequestAndRefusesNewConnections() throws {
        let server = try TestServer()
        let busy = try server.client()
        try busy.send("GET /gate HTTP/1.1\r\nHost: t\r\n\r\n")
        let idle = try server.client()
        try idle.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try idle.readResponse().status, 200)
        XCTAssertTrue(TestServer.eventually { server.gate.arrived == 1 }, "handler is running")

        server.server.shutdown()
        XCTAssertTrue(idle.isClosedByServer(), "idle keep-alive connection closed at shutdown")
        XCTAssertTrue(TestServer.eventually { server.server.openConnections == 1 })

        server.gate.open()
        let response = try busy.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyText, "released")
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertTrue(busy.isClosedByServer())
        server.server.wait()
        XCTAssertThrowsError(try server.client(), "listener is closed after shutdown")
    }

    func testShutdownForceClosesAfterGracePeriod() throws {
        let server = try TestServer { $0.shutdownGracePeriod = .milliseconds(200) }
        let stuck = try server.client()
        try stuck.send("GET /gate HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(TestServer.eventually { server.gate.arrived == 1 })
        server.stop()
        XCTAssertTrue(stuck.isClosedByServer())
        server.gate.open()
    }
}
