import Foundation
import HTTPServer
import XCTest

/// Parser unit tests: bytes in, events out, no sockets.
final class RequestParserTests: XCTestCase {
    /// What feeding some bytes produced.
    struct Outcome {
        var requests: [(request: HTTPRequest, keepAlive: Bool)] = []
        var continues = 0
        var error: HTTPParseError? = nil
    }

    /// Feeds `text` in chunks of `chunk` bytes (everything at once by default) and collects the events.
    func parse(_ text: String, chunk: Int = .max, limits: ParserLimits = ParserLimits()) -> Outcome {
        parse(Array(text.utf8), chunk: chunk, limits: limits)
    }

    func parse(_ bytes: [UInt8], chunk: Int = .max, limits: ParserLimits = ParserLimits()) -> Outcome {
        var parser = RequestParser(limits: limits)
        var buffer = InputBuffer()
        var outcome = Outcome()
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            buffer.append(contentsOf: bytes[offset..<end])
            offset = end
            events: while true {
                switch parser.next(from: &buffer) {
                case .request(let request, let keepAlive): outcome.requests.append((request, keepAlive))
                case .continueNeeded: outcome.continues += 1
                case .needMore: break events
                case .error(let error):
                    outcome.error = error
                    return outcome
                }
            }
        }
        return outcome
    }

    func assertError(_ text: String, _ expected: HTTPParseError, limits: ParserLimits = ParserLimits(), file: StaticString = #filePath, line: UInt = #line) {
        let whole = parse(text, limits: limits)
        XCTAssertEqual(whole.error, expected, "fed at once", file: file, line: line)
        XCTAssertTrue(whole.requests.isEmpty, "no request may come out of a bad head", file: file, line: line)
        let bytewise = parse(text, chunk: 1, limits: limits)
        XCTAssertEqual(bytewise.error, expected, "fed byte by byte", file: file, line: line)
    }

    // MARK: - Well-formed requests

    func testSimpleGetIsParsed() throws {
        let outcome = parse("GET /api/ships?date=2026-11-23 HTTP/1.1\r\nHost: pier\r\nUser-Agent: test\r\n\r\n")
        XCTAssertNil(outcome.error)
        let request = try XCTUnwrap(outcome.requests.first?.request)
        XCTAssertEqual(request.method, .get)
        XCTAssertEqual(request.path, "/api/ships")
        XCTAssertEqual(request.target, "/api/ships?date=2026-11-23")
        XCTAssertEqual(request.query["date"], "2026-11-23")
        XCTAssertEqual(request.version, .http1_1)
        XCTAssertEqual(request.headers["HOST"], "pier")
        XCTAssertEqual(request.headers["user-agent"], "test")
        XCTAssertEqual(outcome.requests.first?.keepAlive, true)
    }

    /// The target, the path and the query are read from the buffer the header fields lie in: changing the headers (a
    /// handler's or a proxy's own copy) leaves them as they arrived, and each field still reads as sent.
    func testTheTargetAndTheHeadersShareOneBufferWithoutTouchingEachOther() throws {
        let outcome = parse("GET /v1/nsw/departures?stop=G203519&mode=bus HTTP/1.1\r\nHost: pier\r\nX-Long-Name: Value\r\n\r\n")
        var request = try XCTUnwrap(outcome.requests.first?.request)
        XCTAssertEqual(request.headers.fields.map(\.name), ["host", "x-long-name"])
        request.headers.add("Added", "after")
        request.headers = HTTPHeaders()
        XCTAssertEqual(request.target, "/v1/nsw/departures?stop=G203519&mode=bus")
        XCTAssertEqual(request.path, "/v1/nsw/departures")
        XCTAssertEqual(request.withPath { Array($0) }, Array("/v1/nsw/departures".utf8))
        XCTAssertEqual(request.query["stop"], "G203519")
        XCTAssertEqual(request.query["mode"], "bus")
        let made = HTTPRequest(method: .get, target: "/x?a=1", path: "/x")
        XCTAssertEqual(made.target, "/x?a=1")
        XCTAssertEqual(made.path, "/x")
    }

    func testRequestSplitAtEveryByteBoundaryGivesTheSameRequest() throws {
        let text = "POST /echo?x=%C3%BCber+alles HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\nX-Long:  spaced value \t\r\n\r\nhello world"
        for chunk in [1, 2, 3, 7, 13, 64] {
            let outcome = parse(text, chunk: chunk)
            XCTAssertNil(outcome.error, "chunk \(chunk)")
            let request = try XCTUnwrap(outcome.requests.first?.request, "chunk \(chunk)")
            XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "hello world")
            XCTAssertEqual(request.query["x"], "über alles")
            XCTAssertEqual(request.headers["x-long"], "spaced value")
        }
    }

    func testPipelinedRequestsComeOutInOrder() {
        let text = (0..<10).map { "GET /n/\($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined()
        let outcome = parse(text)
        XCTAssertEqual(outcome.requests.map(\.request.path), (0..<10).map { "/n/\($0)" })
        XCTAssertEqual(parse(text, chunk: 5).requests.count, 10)
    }

    /// Bodies read with their head (all there) or after it (arriving in pieces) give the same requests, and the bytes
    /// after a body are the next request's, never the body's.
    func testPipelinedBodiesAreReadWhetherTheyArriveWithTheHeadOrAfterIt() {
        let bodies = ["", "x", "{\"p_limit\":50}", String(repeating: "b", count: 300)]
        let text = bodies.enumerated().map { index, body in
            "POST /n/\(index) HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }.joined() + "GET /last HTTP/1.1\r\nHost: a\r\n\r\n"
        for chunk in [Int.max, 1, 7, 40] {
            let outcome = parse(text, chunk: chunk)
            XCTAssertNil(outcome.error, "chunk \(chunk)")
            XCTAssertEqual(outcome.requests.map(\.request.path), (0..<bodies.count).map { "/n/\($0)" } + ["/last"], "chunk \(chunk)")
            XCTAssertEqual(outcome.requests.map { String(decoding: $0.request.body, as: UTF8.self) }, bodies + [""], "chunk \(chunk)")
        }
    }

    func testLeadingEmptyLinesAreIgnored() {
        XCTAssertEqual(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n").requests.count, 1)
    }

    func testChunkedBodyWithExtensionsAndTrailersIsDecoded() throws {
        let text = "POST /u HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n1 ; x\r\n \r\nA\r\n0123456789\r\n0\r\nChecksum: abc\r\n\r\n"
        for chunk in [1, 4, .max] {
            let outcome = parse(text, chunk: chunk)
            XCTAssertNil(outcome.error, "chunk \(chunk)")
            let body = try XCTUnwrap(outcome.requests.first?.request.body)
            XCTAssertEqual(String(decoding: body, as: UTF8.self), "hello 0123456789")
        }
    }

    func testTransferEncodingIsCaseInsensitive() {
        XCTAssertEqual(parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n").requests.count, 1)
    }

    func testRepeatedIdenticalContentLengthIsAccepted() throws {
        let outcome = parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc")
        XCTAssertEqual(outcome.requests.first?.request.body, Array("abc".utf8))
        let list = parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\nabc")
        XCTAssertEqual(list.requests.first?.request.body, Array("abc".utf8))
    }

    func testKeepAliveFollowsVersionAndConnectionHeader() {
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n").requests.first?.keepAlive, false)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n").requests.first?.keepAlive, false)
        XCTAssertEqual(parse("GET / HTTP/1.0\r\n\r\n").requests.first?.keepAlive, false)
        XCTAssertEqual(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").requests.first?.keepAlive, true)
    }

    func testHTTP10WithoutHostIsAccepted() {
        XCTAssertEqual(parse("GET / HTTP/1.0\r\n\r\n").requests.first?.request.version, .http1_0)
    }

    func testExpectContinueIsAnnouncedOnceBeforeTheBody() throws {
        let head = "PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"
        let headOnly = parse(head)
        XCTAssertEqual(headOnly.continues, 1)
        XCTAssertTrue(headOnly.requests.isEmpty)
        let withBody = parse(head + "data", chunk: 1)
        XCTAssertEqual(withBody.continues, 1)
        XCTAssertEqual(withBody.requests.first?.request.body, Array("data".utf8))
        // A body already sent along with the head needs no 100.
        XCTAssertEqual(parse(head + "data").continues, 0)
    }

    func testAbsoluteFormTargetIsReducedToPathAndQuery() throws {
        let request = try XCTUnwrap(parse("GET http://example.com:8080/v1/weather?lat=60.1&lon=24.9 HTTP/1.1\r\nHost: example.com\r\n\r\n").requests.first?.request)
        XCTAssertEqual(request.path, "/v1/weather")
        XCTAssertEqual(request.query["lat"], "60.1")
        let bare = try XCTUnwrap(parse("GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n").requests.first?.request)
        XCTAssertEqual(bare.path, "/")
    }

    func testPercentEncodedPathIsDecoded() throws {
        let request = try XCTUnwrap(parse("GET /a%20b/%C3%A4 HTTP/1.1\r\nHost: a\r\n\r\n").requests.first?.request)
        XCTAssertEqual(request.path, "/a b/ä")
    }

    func testAsteriskTargetOnlyForOptions() {
        XCTAssertEqual(parse("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n").requests.first?.request.path, "*")
        XCTAssertEqual(parse("GET * HTTP/1.1\r\nHost: a\r\n\r\n").error, .invalidTarget("* is only valid for OPTIONS"))
    }

    func testLimitsExactlyAtTheBoundaryAreAccepted() {
        let limits = ParserLimits(maxRequestLineBytes: 64, maxHeaderBytes: 256, maxHeaderCount: 3, maxBodyBytes: 5)
        let target = "/" + String(repeating: "a", count: 64 - "GET  HTTP/1.1".count - 1)
        let line = "GET \(target) HTTP/1.1"
        XCTAssertEqual(line.utf8.count, 64)
        let outcome = parse("\(line)\r\nHost: a\r\nB: b\r\nContent-Length: 5\r\n\r\n12345", limits: limits)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.requests.count, 1)
    }

    // MARK: - Framing errors (RFC 9112 §6)

    func testContentLengthWithTransferEncodingIsRejected() {
        assertError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", .contentLengthWithTransferEncoding)
    }

    func testDifferingDuplicateContentLengthIsRejected() {
        assertError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", .conflictingContentLengths)
        assertError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6\r\n\r\n", .conflictingContentLengths)
    }

    /// Repeated members that agree are one length; the first problem in order is the one answered.
    func testContentLengthMembersAreReadInOrder() {
        assertError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6, x\r\n\r\n", .conflictingContentLengths)
        assertError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, x, 6\r\n\r\n", .invalidContentLength)
        assertError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\nTransfer-Encoding: chunked\r\n\r\n", .contentLengthWithTransferEncoding)
        for value in ["5, 5", " 5 ,5\t", "5,5,5"] {
            let outcome = parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(value)\r\n\r\nhello")
            XCTAssertNil(outcome.error, value)
            XCTAssertEqual(outcome.requests.first?.request.body, Array("hello".utf8), value)
        }
    }

    func testInvalidContentLengthIsRejected() {
        for value in ["+5", "-1", "abc", "", "5 5", "0x10", "99999999999999999999", "1,"] {
            assertError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(value)\r\n\r\n", .invalidContentLength)
        }
    }

    func testTransferEncodingInHTTP10IsRejected() {
        assertError("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .transferEncodingInHTTP10)
    }

    func testUnknownTransferCodingIsNotImplemented() {
        assertError("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferCoding("gzip"))
        XCTAssertEqual(HTTPParseError.unsupportedTransferCoding("gzip").status, .notImplemented)
    }

    func testChunkedNotLastIsRejected() {
        assertError("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", .invalidTransferEncoding("chunked must be the final coding"))
        assertError("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", .invalidTransferEncoding("chunked applied more than once"))
    }

    func testInvalidChunkSizesAreRejected() {
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        assertError(head + "g\r\n", .invalidChunk("chunk size is not hexadecimal"))
        assertError(head + "\r\n", .invalidChunk("chunk size is not hexadecimal"))
        assertError(head + "-1\r\n", .invalidChunk("chunk size is not hexadecimal"))
        assertError(head + "5x\r\n", .invalidChunk("unexpected byte after chunk size"))
        assertError(head + "ffffffffffffffffff\r\n", .invalidChunk("chunk size too large"))
        assertError(head + "3\r\nabcd\r\n", .invalidChunk("chunk data not followed by CRLF"))
        assertError(head + "3\nabc\r\n", .bareLineFeed)
    }

    func testBodyOverTheLimitIsRejectedBeforeItArrives() {
        let limits = ParserLimits(maxBodyBytes: 10)
        assertError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n", .bodyTooLarge(limit: 10), limits: limits)
        assertError("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n3\r\n", .bodyTooLarge(limit: 10), limits: limits)
        XCTAssertEqual(HTTPParseError.bodyTooLarge(limit: 10).status, .contentTooLarge)
    }

    // MARK: - Head syntax errors

    func testObsoleteLineFoldingIsRejected() {
        assertError("GET / HTTP/1.1\r\nHost: a\r\nX-A: one\r\n two\r\n\r\n", .obsoleteLineFolding)
        assertError("GET / HTTP/1.1\r\nHost: a\r\nX-A: one\r\n\ttwo\r\n\r\n", .obsoleteLineFolding)
    }

    func testWhitespaceBeforeColonIsRejected() {
        assertError("GET / HTTP/1.1\r\nHost : a\r\n\r\n", .whitespaceBeforeColon)
        assertError("GET / HTTP/1.1\r\nHost: a\r\nContent-Length\t: 0\r\n\r\n", .whitespaceBeforeColon)
    }

    func testBareCarriageReturnIsRejected() {
        assertError("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", .bareCarriageReturn)
        assertError("GET / HTTP/1.1\rX\r\nHost: a\r\n\r\n", .bareCarriageReturn)
    }

    func testBareLineFeedIsRejected() {
        assertError("GET / HTTP/1.1\nHost: a\r\n\r\n", .bareLineFeed)
        assertError("GET / HTTP/1.1\r\nHost: a\n\r\n", .bareLineFeed)
    }

    func testNulAndControlBytesAreRejected() {
        assertError("GET / HTTP/1.1\r\nHost: a\u{0}b\r\n\r\n", .controlCharacter)
        assertError("GET /a\u{1}b HTTP/1.1\r\nHost: a\r\n\r\n", .controlCharacter)
        assertError("GET / HTTP/1.1\r\nHost: a\u{7F}\r\n\r\n", .controlCharacter)
        assertError("G\u{0}T / HTTP/1.1\r\nHost: a\r\n\r\n", .controlCharacter)
    }

    /// A field value is searched sixteen bytes at a time: every forbidden byte is found wherever it stands in a long
    /// value (in the first block, the second, or the tail after them), and what may stand there (tabs, obs-text) passes
    /// wherever it stands.
    func testEveryControlByteIsFoundAtEveryPositionOfALongValue() {
        let forbidden = (UInt8(0)..<0x20).filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } + [0x7F]
        for position in 0..<40 {
            for byte in forbidden {
                var value = Array(repeating: UInt8(ascii: "t"), count: 40)
                value[position] = byte
                let head = Array("GET / HTTP/1.1\r\nHost: a\r\nX-Token: ".utf8) + value + Array("\r\n\r\n".utf8)
                XCTAssertEqual(parse(head).error, .controlCharacter, "byte \(byte) at \(position)")
            }
            for allowed in [0x09, 0x80, 0xFF, 0x7E, 0x20, 0x21] as [UInt8] {
                var value = Array(repeating: UInt8(ascii: "t"), count: 40)
                value[position] = allowed
                let head = Array("GET / HTTP/1.1\r\nHost: a\r\nX-Token: ".utf8) + value + Array("\r\n\r\n".utf8)
                XCTAssertEqual(parse(head).requests.count, 1, "byte \(allowed) at \(position)")
            }
        }
        assertError("GET / HTTP/1.1\r\nHost: a\r\nX-Token: tttt\ttttttttt\u{1}ttttttttt\r\n\r\n", .controlCharacter)
    }

    /// A request target is checked sixteen bytes at a time where the line ends in its version: a byte that is not visible
    /// ASCII is refused wherever it stands in a target of any length, and a clean target of every length is its path.
    func testEveryTargetByteIsCheckedWhereverItStands() {
        let refused = (UInt8(0)...0x20).filter { $0 != 0x0A && $0 != 0x0D } + [0x7F, 0x80, 0xC3, 0xFF]
        for length in 1...40 {
            let clean = "/" + String(repeating: "p", count: length - 1)
            XCTAssertEqual(parse("GET \(clean) HTTP/1.1\r\nHost: a\r\n\r\n").requests.first?.request.path, clean, "length \(length)")
            for position in 1..<length {
                for byte in refused {
                    var target = Array(clean.utf8)
                    target[position] = byte
                    let head = Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
                    let outcome = parse(head)
                    XCTAssertTrue(outcome.requests.isEmpty && outcome.error != nil, "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    func testMalformedRequestLinesAreRejected() {
        assertError("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine("expected single spaces between method, target and version"))
        assertError("GET /\r\nHost: a\r\n\r\n", .malformedRequestLine("expected single spaces between method, target and version"))
        assertError("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", .malformedRequestLine("invalid HTTP version"))
        assertError("GET / HTTQ/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine("invalid HTTP version"))
        assertError(" GET / HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine("missing method"))
        assertError("GET nopath HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget("must start with /"))
    }

    func testOtherVersionsAreNotSupported() {
        assertError("GET / HTTP/2.0\r\nHost: a\r\n\r\n", .unsupportedVersion("HTTP/2.0"))
        XCTAssertEqual(HTTPParseError.unsupportedVersion("HTTP/2.0").status, .httpVersionNotSupported)
    }

    func testHostIsRequiredOnceInHTTP11() {
        assertError("GET / HTTP/1.1\r\nX: y\r\n\r\n", .missingHost)
        assertError("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .multipleHosts)
    }

    func testInvalidFieldNamesAreRejected() {
        assertError("GET / HTTP/1.1\r\nHost: a\r\nBad(name): x\r\n\r\n", .invalidHeaderField("invalid character in field name"))
        assertError("GET / HTTP/1.1\r\nHost: a\r\n: x\r\n\r\n", .invalidHeaderField("empty field name"))
        assertError("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", .invalidHeaderField("missing colon"))
    }

    func testMalformedPercentEncodingIsRejected() {
        assertError("GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget("malformed percent-encoding in path"))
        assertError("GET /a?x=%4 HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget("malformed percent-encoding in query"))
    }

    func testUnsupportedExpectationIsRejected() {
        assertError("GET / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", .unsupportedExpectation("200-ok"))
        XCTAssertEqual(HTTPParseError.unsupportedExpectation("x").status, .expectationFailed)
    }

    // MARK: - Limits

    /// The error statuses a fuzz finding (`Findings/`, the fuzz target's limits) gets, whole and in pieces of
    /// several sizes: one status when parsing does not depend on how the bytes arrived.
    func findingStatuses(_ name: String) throws -> Set<Int> {
        let finding = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Findings/\(name)")
        let bytes = [UInt8](try Data(contentsOf: finding))
        let limits = ParserLimits(maxRequestLineBytes: 256, maxHeaderBytes: 1024, maxHeaderCount: 16, maxBodyBytes: 512)
        return Set([Int.max, 1, 7, 64, 255, 1000].map { Int(parse(bytes, chunk: $0, limits: limits).error?.status.code ?? 0) })
    }

    /// Found by fuzz-http: a request line over the limit that ended in a bare LF was 400 when it arrived whole
    /// but 414 when it arrived in pieces. The length is now decided first, so the answer does not depend on
    /// how the bytes were split.
    func testAnOverlongLineIs414HoweverItArrives() throws {
        XCTAssertEqual(try findingStatuses("http-split-414-vs-400.bin"), [414])
        let limits = ParserLimits(maxRequestLineBytes: 256, maxHeaderBytes: 1024, maxHeaderCount: 16, maxBodyBytes: 512)
        let bareLF = "GET /" + String(repeating: "a", count: 300) + "\n\n"
        XCTAssertEqual(parse(bareLF, limits: limits).error, .requestLineTooLong(limit: 256))
        XCTAssertEqual(parse("GET / HTTP/1.1\nHost: a\n\n", limits: limits).error, .bareLineFeed, "a short line with a bare LF is still 400")
    }

    /// Found by fuzzing (`fuzz-http`, 2026-11-23): a head over the header limit whose first bad line (a bare LF)
    /// lay beyond the limit was 400 when it arrived whole but 431 in pieces. Where a line ends past the limit
    /// is now 431 before the line is judged.
    func testAHeadOverItsLimitIs431HoweverItArrives() throws {
        XCTAssertEqual(try findingStatuses("http-split-431-vs-400.bin"), [431])
        let small = ParserLimits(maxHeaderBytes: 100)
        let lateBareLF = "GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 200) + "\nHost: a\r\n\r\n"
        XCTAssertEqual(parse(lateBareLF, limits: small).error, .headerBlockTooLarge(limit: 100))
        XCTAssertEqual(parse(lateBareLF, chunk: 50, limits: small).error, .headerBlockTooLarge(limit: 100))
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nX: v\nHost: a\r\n\r\n", limits: small).error, .bareLineFeed, "within the limit a bare LF is still 400")
    }

    /// Found by fuzzing (`fuzz-http`, 2026-11-23, twice): the same for a chunked body's trailer section — a
    /// malformed trailer line ending past the limit was 400 whole and 431 in pieces.
    func testATrailerSectionOverItsLimitIs431HoweverItArrives() throws {
        XCTAssertEqual(try findingStatuses("http-trailer-431-vs-400.bin"), [431])
        let small = ParserLimits(maxHeaderBytes: 100)
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
        // A first trailer line takes 65 of the 100 bytes; the second, malformed, ends past the limit.
        let late = head + "A: " + String(repeating: "v", count: 60) + "\r\nX: " + String(repeating: "v", count: 40) + "\u{1}\r\n\r\n"
        XCTAssertEqual(parse(late, limits: small).error, .headerBlockTooLarge(limit: 100))
        XCTAssertEqual(parse(late, chunk: 30, limits: small).error, .headerBlockTooLarge(limit: 100))
        XCTAssertEqual(parse(head + "X: v\u{1}\r\n\r\n", limits: small).error?.status, .badRequest, "within the limit a bad trailer is still 400")
        XCTAssertEqual(parse(head + "X: v\r\n\r\n", limits: small).requests.count, 1)
    }

    func testRequestLineOverTheLimitIs414EvenBeforeItEnds() {
        let limits = ParserLimits(maxRequestLineBytes: 64)
        let long = "GET /" + String(repeating: "a", count: 100)
        XCTAssertEqual(parse(long, limits: limits).error, .requestLineTooLong(limit: 64))
        assertError(long + " HTTP/1.1\r\nHost: a\r\n\r\n", .requestLineTooLong(limit: 64), limits: limits)
        XCTAssertEqual(HTTPParseError.requestLineTooLong(limit: 1).status, .uriTooLong)
    }

    func testHeaderBlockOverTheLimitIs431() {
        let limits = ParserLimits(maxHeaderBytes: 100)
        let big = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 200)
        XCTAssertEqual(parse(big, limits: limits).error, .headerBlockTooLarge(limit: 100))
        assertError(big + "\r\n\r\n", .headerBlockTooLarge(limit: 100), limits: limits)
        XCTAssertEqual(HTTPParseError.headerBlockTooLarge(limit: 1).status, .headerFieldsTooLarge)
    }

    func testTooManyHeaderFieldsIs431() {
        let limits = ParserLimits(maxHeaderCount: 5)
        let fields = (0..<6).map { "X-\($0): v\r\n" }.joined()
        assertError("GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n", .tooManyHeaderFields(limit: 5), limits: limits)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\nY: 2\r\nZ: 3\r\nW: 4\r\n\r\n", limits: limits).requests.count, 1)
    }

    func testByteAtATimeScanStaysLinear() {
        // 16 KiB of headers fed one byte at a time: a quadratic rescan would take minutes here.
        let fields = (0..<99).map { "X-Field-\($0): " + String(repeating: "v", count: 140) + "\r\n" }.joined()
        let outcome = parse("GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n", chunk: 1)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.requests.first?.request.headers.count, 100)
    }
}
