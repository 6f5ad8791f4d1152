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

    /// With every connection taken, the liveness path still answers on a connection of the reserve beyond the cap;
    /// anything else asked there is `503`, and past the reserve too.
    func testTheLivenessPathAnswersWhenEveryConnectionIsTaken() throws {
        let server = try TestServer { $0.maxConnections = 3; $0.livenessPath = "/hello"; $0.livenessReserve = 2 }
        defer { server.stop() }
        var held: [RawClient] = []
        for _ in 0..<3 {
            let client = try server.client()
            try client.send("GET /n HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try client.readResponse().status, 200)
            held.append(client)
        }
        let live = try server.client()
        try live.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        let answer = try live.readResponse()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.header("Connection"), "close", "a reserve connection is answered once")
        let other = try server.client()
        try other.send("GET /n HTTP/1.1\r\nHost: t\r\n\r\n")
        let refused = try other.readResponse()
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.header("Retry-After"), "1")
        // The reserve itself is bounded: two held open, the next is refused at once.
        let reserve = try (0..<2).map { _ in try server.client() }
        XCTAssertTrue(TestServer.eventually { server.server.openConnections == 5 })
        let beyond = try server.client()
        XCTAssertEqual(try beyond.readResponse().status, 503)
        withExtendedLifetime((held, reserve)) {}
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

    /// A rolling restart loses nothing: every request a client sent before shutdown — pipelined on many
    /// keep-alive connections, answered on the loop or off it, or sent on a connection still in the accept
    /// queue — gets a whole response (the last one answered after shutdown began says `Connection: close`; no
    /// other does), and every connection, idle ones included, ends with a FIN, never a reset.
    func testShutdownAnswersEveryRequestAlreadySentAndClosesWithoutReset() throws {
        var closedByAnswer = 0
        for round in 0..<4 {
            // Idle connections linger (half-closed) until their client closes or this passes.
            let server = try TestServer { $0.lingerTimeout = .milliseconds(300) }
            let pipelined = 10
            var busy: [RawClient] = []
            for _ in 0..<24 { busy.append(try server.client()) }
            let idle = try (0..<6).map { _ in try server.client() }
            XCTAssertTrue(TestServer.eventually { server.server.openConnections == 30 }, "round \(round)")
            for (number, client) in busy.enumerated() {
                let requests = (0..<pipelined).map { index in
                    let path = (number + index) % 3 == 0 ? "/async" : "/n"
                    return "GET \(path)?i=\(number)-\(index) HTTP/1.1\r\nHost: t\r\n\r\n"
                }
                try client.send(requests.joined())
            }
            // Connected and asking, but (some of them) not accepted yet when shutdown begins.
            var late: [RawClient] = []
            for _ in 0..<32 {
                let client = try server.client()
                try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                late.append(client)
            }
            server.server.shutdown()

            for (number, client) in busy.enumerated() {
                for index in 0..<pipelined {
                    let response = try client.readResponse()
                    XCTAssertEqual(response.status, 200, "round \(round), connection \(number), request \(index)")
                    XCTAssertTrue(response.bodyText.hasSuffix("=\(number)-\(index)"), "answered in order: \(response.bodyText)")
                    if response.header("Connection") == "close" {
                        XCTAssertEqual(index, pipelined - 1, "only the last answer closes (round \(round), connection \(number))")
                        closedByAnswer += 1
                    }
                }
                XCTAssertTrue(client.isClosedCleanlyByServer(), "round \(round), connection \(number): FIN, no reset")
            }
            for client in late {
                let response = try client.readResponse()
                XCTAssertEqual(response.status, 200)
                if response.header("Connection") == "close" { closedByAnswer += 1 }
                XCTAssertTrue(client.isClosedCleanlyByServer(), "round \(round): a late connection ends with a FIN")
            }
            for client in idle { XCTAssertTrue(client.isClosedCleanlyByServer(), "round \(round): an idle connection ends with a FIN") }
            withExtendedLifetime((busy, idle, late)) { server.server.wait() }
            XCTAssertThrowsError(try server.client(), "the listener is closed after shutdown")
        }
        XCTAssertGreaterThan(closedByAnswer, 0, "some requests were still being answered when shutdown began")
    }
}
