import HTTPServer
import HTTPTesting
import XCTest

/// HTTP/1.1 behaviour over real sockets: keep-alive, pipelining, framing, errors.
final class ServerProtocolTests: XCTestCase {
    var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer()
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    func testResponseCarriesLengthDateAndServerWithoutVersion() throws {
        let response = try server.get("/hello")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyText, "hello")
        XCTAssertEqual(response.header("Content-Length"), "5")
        XCTAssertEqual(response.header("Server"), "pier")
        let date = try XCTUnwrap(response.header("Date"))
        XCTAssertTrue(date.hasSuffix(" GMT") && date.count == 29, "IMF-fixdate, got \(date)")
        XCTAssertNil(response.header("Connection"))
    }

    func testHandlersSeeTheSocketPeer() throws {
        XCTAssertEqual(try server.get("/peer").bodyText, "127.0.0.1")
        let client = try server.client()
        try client.send("GET /peer-async HTTP/1.1\r\nHost: t\r\n\r\nGET /peer HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "127.0.0.1")
        XCTAssertEqual(try client.readResponse().bodyText, "127.0.0.1")
    }

    func testKeepAliveServesManyRequestsOnOneConnection() throws {
        let client = try server.client()
        for i in 0..<20 {
            try client.send("GET /n?i=\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try client.readResponse().bodyText, "n=\(i)")
        }
        XCTAssertEqual(server.server.openConnections, 1)
    }

    func testConnectionCloseIsHonoured() throws {
        let client = try server.client()
        try client.send("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertTrue(client.isClosedByServer())
    }

    /// A client that said `Connection: close` and sent nothing more is closed at once with a FIN after its answer; one
    /// that sent bytes after it still reads its whole answer (the server lingers instead of resetting), however large.
    func testACloseAfterTheClientsLastRequestIsAFinAndLateBytesDoNotResetTheAnswer() throws {
        let plain = try server.client()
        try plain.send("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(try plain.readResponse().bodyText, "hello")
        XCTAssertTrue(plain.isClosedCleanlyByServer())

        for size in [10, 200_000] {
            let late = try server.client()
            try late.send("GET /patterned?size=\(size) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try late.readResponse()
            XCTAssertEqual(response.body.count, size)
            XCTAssertEqual(response.header("Connection"), "close")
            XCTAssertTrue(late.isClosedCleanlyByServer(), "nothing after the answer to the request that said close, and no reset")
        }
    }

    func testHTTP10ClosesUnlessKeepAliveIsAsked() throws {
        let plain = try server.client()
        try plain.send("GET /hello HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try plain.readResponse().header("Connection"), "close")
        XCTAssertTrue(plain.isClosedByServer())

        let keep = try server.client()
        try keep.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(try keep.readResponse().header("Connection"), "keep-alive")
        try keep.send("GET /n?i=2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(try keep.readResponse().bodyText, "n=2")
    }

    func testRequestSentOneByteAtATimeIsAnswered() throws {
        let client = try server.client()
        for byte in Array("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 7\r\n\r\npayload".utf8) {
            try client.send([byte])
        }
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyText, "payload")
    }

    func testTenPipelinedRequestsInOneWriteAreAnsweredInOrder() throws {
        let client = try server.client()
        // Sync and async routes mixed: the async ones must not let later answers overtake them.
        let requests = (0..<10).map { i in
            "GET /\(i % 3 == 0 ? "async" : "n")?i=\(i) HTTP/1.1\r\nHost: t\r\n\r\n"
        }.joined()
        try client.send(requests)
        for i in 0..<10 {
            let response = try client.readResponse()
            XCTAssertEqual(response.bodyText, "\(i % 3 == 0 ? "a" : "n")=\(i)")
        }
    }

    /// Large bodies go out from where they lie, after their heads (not copied into the buffer): pipelined with small
    /// answers and a `HEAD`, every byte arrives in order (``OutputQueueTests`` stops and resumes the writes inside
    /// heads, bodies and the seams between them).
    func testLargeBodiesAndSmallAnswersPipelinedToASlowReaderArriveWhole() throws {
        let client = try server.client()
        let sizes = [200_000, 4095, 4096, 5000, 70_001]
        var requests = ""
        for (index, size) in sizes.enumerated() {
            requests += "GET /patterned?size=\(size) HTTP/1.1\r\nHost: t\r\n\r\n"
            requests += "GET /n?i=\(index) HTTP/1.1\r\nHost: t\r\n\r\n"
        }
        requests += "HEAD /patterned?size=9000 HTTP/1.1\r\nHost: t\r\n\r\n"
        requests += "GET /patterned?size=9000 HTTP/1.1\r\nHost: t\r\n\r\n"
        try client.send(requests)
        for (index, size) in sizes.enumerated() {
            let large = try client.readResponse()
            XCTAssertEqual(large.status, 200)
            XCTAssertEqual(large.header("Content-Length"), "\(size)")
            XCTAssertTrue(large.body == TestServer.patterned(size), "the body of \(size) bytes arrived whole and in order")
            XCTAssertEqual(try client.readResponse().bodyText, "n=\(index)")
        }
        let head = try client.readResponse(head: true)
        XCTAssertEqual(head.header("Content-Length"), "9000")
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertTrue(try client.readResponse().body == TestServer.patterned(9000))
    }

    func testContentLengthAndChunkedBodiesAreEchoed() throws {
        let client = try server.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        XCTAssertEqual(try client.readResponse().bodyText, "hello")
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "abcdefg")
    }

    func testExpectContinueGetsInterimResponseThenFinal() throws {
        let client = try server.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readResponse()
        XCTAssertEqual(interim.status, 100)
        try client.send("body")
        let final = try client.readResponse()
        XCTAssertEqual(final.status, 200)
        XCTAssertEqual(final.bodyText, "body")
    }

    func testExpectContinueWithTooLargeBodyGets413Instead() throws {
        let client = try server.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999\r\nExpect: 100-continue\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertTrue(client.isClosedByServer())
    }

    func testHeadHasLengthButNoBody() throws {
        let client = try server.client()
        try client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try client.readResponse(head: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), "5")
        // The next response must start right after the head: no stray body bytes in between.
        try client.send("GET /n?i=after HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "n=after")
    }

    func testUnknownPathIs404AndWrongMethodIs405WithAllow() throws {
        let missing = try server.get("/nope")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual(missing.bodyText, #"{"error":"no route for /nope"}"#)

        let client = try server.client()
        try client.send("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        let wrong = try client.readResponse()
        XCTAssertEqual(wrong.status, 405)
        XCTAssertEqual(wrong.header("Allow"), "GET, HEAD, OPTIONS", "a public path answers its preflight too")
        XCTAssertTrue(wrong.bodyText.contains("\"error\""))
        // 404 and 405 keep the connection usable.
        try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
    }

    func testHandlerErrorsBecomeJSONErrors() throws {
        let typed = try server.get("/fail-http")
        XCTAssertEqual(typed.status, 422)
        XCTAssertEqual(typed.bodyText, #"{"error":"coordinates outside coverage"}"#)
        let untyped = try server.get("/fail-other")
        XCTAssertEqual(untyped.status, 500)
        XCTAssertEqual(untyped.bodyText, #"{"error":"internal server error"}"#)
    }

    func testHandler400KeepsTheConnectionOpen() throws {
        let client = try server.client()
        try client.send("GET /reject HTTP/1.1\r\nHost: t\r\n\r\n")
        let rejected = try client.readResponse()
        XCTAssertEqual(rejected.status, 400)
        XCTAssertEqual(rejected.bodyText, #"{"error":"lat must be a number"}"#)
        XCTAssertNil(rejected.header("Connection"))
        try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
    }

    func testHeaderValuesCannotInjectHeaderLines() throws {
        let response = try server.get("/echo-header?v=a%0D%0ASet-Cookie:%20x=1")
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.header("Set-Cookie"))
        XCTAssertEqual(response.header("X-Echo"), "a  Set-Cookie: x=1")
    }

    func testMalformedRequestsGet400AndTheConnectionIsClosed() throws {
        let bad = [
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc",
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: -3\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "GET /hello HTTP/1.1\r\nHost: t\r\nX: a\r\n folded\r\n\r\n",
            "GET /hello HTTP/1.1\r\nHost : t\r\n\r\n",
            "GET /hello HTTP/1.1\r\nHost: t\rx\r\n\r\n",
            "GET /hello HTTP/1.1\r\nHost: t\u{0}\r\n\r\n",
            "GET /hello HTTP/1.1\r\n\r\n",
        ]
        for request in bad {
            let client = try server.client()
            // A valid request follows the bad one: it must not be answered (no smuggling).
            try client.send(request + "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 400, request.debugDescription)
            XCTAssertEqual(response.header("Connection"), "close", request.debugDescription)
            XCTAssertTrue(response.bodyText.hasPrefix(#"{"error":""#), request.debugDescription)
            let rest = try client.readToEnd()
            XCTAssertTrue(rest.isEmpty, "nothing after the 400 for \(request.debugDescription)")
        }
    }

    func testLimitsAnswer414And431And413() throws {
        let longLine = try server.client()
        try longLine.send("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try longLine.readResponse().status, 414)

        let manyFields = try server.client()
        try manyFields.send("GET /hello HTTP/1.1\r\nHost: t\r\n" + (0..<101).map { "X-\($0): v\r\n" }.joined() + "\r\n")
        XCTAssertEqual(try manyFields.readResponse().status, 431)

        let bigFields = try server.client()
        try bigFields.send("GET /hello HTTP/1.1\r\nHost: t\r\nX: " + String(repeating: "v", count: 17_000) + "\r\n\r\n")
        XCTAssertEqual(try bigFields.readResponse().status, 431)

        let bigBody = try server.client()
        try bigBody.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1048577\r\n\r\n")
        let response = try bigBody.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertTrue(bigBody.isClosedByServer())
    }

    func testUnsupportedVersionIs505() throws {
        let client = try server.client()
        try client.send("GET /hello HTTP/2.0\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 505)
    }

    func testClientHalfCloseStillGetsItsAnswers() throws {
        let client = try server.client()
        try client.send("GET /n?i=1 HTTP/1.1\r\nHost: t\r\n\r\nGET /async?i=2 HTTP/1.1\r\nHost: t\r\n\r\n")
        client.finishSending()
        XCTAssertEqual(try client.readResponse().bodyText, "n=1")
        XCTAssertEqual(try client.readResponse().bodyText, "a=2")
        XCTAssertTrue(client.isClosedByServer())
    }

    func testMetricsCountRequestsByRouteAndStatus() throws {
        for _ in 0..<3 { _ = try server.get("/hello") }
        _ = try server.get("/missing")
        let text = server.registry.render()
        XCTAssertTrue(text.contains(#"http_requests_total{route="/hello",status="200"} 3"#), text)
        XCTAssertTrue(text.contains(#"http_requests_total{route="unmatched",status="404"} 1"#), text)
        XCTAssertTrue(text.contains(#"http_request_duration_seconds_count{route="/hello"} 3"#), text)
        XCTAssertTrue(text.contains("http_open_connections "), text)
    }
}

final class HybridHandlerTests: XCTestCase {
    func testFastAnswersOnTheLoopAndNilFallsBackToTheSlowPath() throws {
        let server = try TestServer()
        defer { server.stop() }
        XCTAssertEqual(try server.get("/hybrid?path=fast").bodyText, "fast")
        XCTAssertEqual(try server.get("/hybrid?path=miss").bodyText, "slow")
        let bad = try server.get("/hybrid?path=bad")
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.bodyText.contains("answered on the loop"))
        // Pipelined fast and slow answers keep their order.
        let client = try server.client()
        try client.send("GET /hybrid?path=miss HTTP/1.1\r\nHost: t\r\n\r\nGET /hybrid?path=fast HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "slow")
        XCTAssertEqual(try client.readResponse().bodyText, "fast")
    }
}
