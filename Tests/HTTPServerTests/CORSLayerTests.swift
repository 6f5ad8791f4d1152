import HTTPServer
import HTTPTesting
import XCTest

/// CORS is one layer of the server: handlers never mention it; the router marks a path public or restricted.
final class CORSLayerTests: XCTestCase {
    var server: TestServer!

    override func setUpWithError() throws { server = try TestServer() }
    override func tearDown() { server?.stop() }

    private func send(_ method: String, _ path: String, headers: [(String, String)] = []) throws -> RawResponse {
        try RawClient.request(port: server.port, path, method: method, headers: headers)
    }

    func testEveryAnswerOfAPublicPathAllowsAnyOriginErrorsAnd304Included() throws {
        XCTAssertEqual(try send("GET", "/hello").header("Access-Control-Allow-Origin"), "*")
        let head = try RawClient(port: server.port)
        try head.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try head.readResponse(head: true).header("Access-Control-Allow-Origin"), "*")
        let thrown = try send("GET", "/reject")
        XCTAssertEqual(thrown.status, 400)
        XCTAssertEqual(thrown.header("Access-Control-Allow-Origin"), "*")
        let tagged = try send("GET", "/tagged")
        let etag = try XCTUnwrap(tagged.header("ETag"))
        let notModified = try send("GET", "/tagged", headers: [("If-None-Match", etag)])
        XCTAssertEqual(notModified.status, 304)
        XCTAssertEqual(notModified.header("Access-Control-Allow-Origin"), "*")
        XCTAssertEqual(notModified.header("Cache-Control"), "max-age=60")
        // Exactly one, right after Date: the handler's headers never carry it.
        let raw = try RawClient(port: server.port)
        try raw.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try raw.readResponse().headers.filter { $0.name.lowercased() == "access-control-allow-origin" }.count, 1)
    }

    func testAPublicPathAnswersItsPreflightWithItsOwnMethods() throws {
        let get = try send("OPTIONS", "/hello")
        XCTAssertEqual(get.status, 204)
        XCTAssertEqual(get.header("Access-Control-Allow-Origin"), "*")
        XCTAssertEqual(get.header("Access-Control-Allow-Methods"), "GET, HEAD, OPTIONS")
        XCTAssertEqual(get.header("Allow"), "GET, HEAD, OPTIONS")
        XCTAssertEqual(get.header("Access-Control-Allow-Headers"), "Authorization, If-None-Match, Content-Type", "the core knows no feature's header")
        XCTAssertEqual(get.header("Access-Control-Max-Age"), "86400")
        let post = try send("OPTIONS", "/public-post")
        XCTAssertEqual(post.status, 204)
        XCTAssertEqual(post.header("Access-Control-Allow-Methods"), "POST, OPTIONS")
        XCTAssertEqual(try send("DELETE", "/public-post").header("Allow"), "OPTIONS, POST")
    }

    func testARestrictedPathGetsNoCORSAtAll() throws {
        let answer = try send("GET", "/private")
        XCTAssertEqual(answer.status, 200)
        XCTAssertNil(answer.header("Access-Control-Allow-Origin"))
        let preflight = try send("OPTIONS", "/private-post")
        XCTAssertEqual(preflight.status, 405)
        XCTAssertEqual(preflight.header("Allow"), "POST")
        XCTAssertNil(preflight.header("Access-Control-Allow-Origin"))
    }

    /// A feature whose clients send a header of their own (App Attest's token) adds it before its routes are registered.
    func testThePreflightAllowsTheHeadersTheExecutableAdds() {
        var router = Router()
        router.requestHeaders += ["X-Pier-App-Token"]
        router.on(.get, "/a") { _ in .text("a") }
        let request = HTTPRequest(method: .options, target: "/a", path: "/a")
        guard case .found(let handler, _, _, _, _) = router.match(.options, path: "/a"), case .immediate(let answer) = handler else {
            return XCTFail("the preflight is answered on the loop")
        }
        XCTAssertEqual(try answer(request).headers["Access-Control-Allow-Headers"], "Authorization, If-None-Match, Content-Type, X-Pier-App-Token")
    }

    func testTheRouteListNamesEveryPreflight() {
        var router = Router()
        router.on(.get, "/a") { _ in .text("a") }
        router.on(.get, "/b", access: .restricted) { _ in .text("b") }
        XCTAssertEqual(router.operations, ["GET /a", "GET /b", "OPTIONS /a"])
    }
}
