@testable import HTTPServer
import XCTest

/// The header fields as bytes (``HTTPHeaders``), a response's head encoded once (``HTTPResponse/preparedForSending()``)
/// and the `Connection` tokens read as bytes: each must say exactly what the `String`s said before.
final class HeaderBytesTests: XCTestCase {
    func testFieldsKeepOrderSpellingAndAnswerWithoutCase() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-Two": "a"]
        headers.add("x-two", "b")
        headers.add("Émoji-Value", "✓ ok")
        XCTAssertEqual(headers.count, 4)
        XCTAssertEqual(headers["CONTENT-TYPE"], "text/plain")
        XCTAssertEqual(headers.values("X-TWO"), ["a", "b"])
        XCTAssertEqual(headers["émoji-value"], nil, "only ASCII letters fold")
        XCTAssertEqual(headers["Émoji-Value"], "✓ ok")
        XCTAssertFalse(headers.contains("x-tw"))
        XCTAssertFalse(headers.contains("x-twoo"))
        XCTAssertEqual(headers.map(\.name), ["Content-Type", "X-Two", "x-two", "Émoji-Value"])
        headers.set("X-Two", "c")
        XCTAssertEqual(headers.fields.map { "\($0.name)=\($0.value)" }, ["Content-Type=text/plain", "Émoji-Value=✓ ok", "X-Two=c"])
        headers.remove("content-type")
        XCTAssertNil(headers["Content-Type"])
        XCTAssertEqual(headers.count, 2)
        headers.remove("absent")
        XCTAssertEqual(headers.count, 2)
        // "-" and "\r" differ by the bit case folding ignores: never equal.
        XCTAssertFalse((["a-b": "1"] as HTTPHeaders).contains("a\rb"))
        XCTAssertFalse((["a@b": "1"] as HTTPHeaders).contains("a`b"))
    }

    func testParsedFieldsAreFoldedTrimmedAndCopiedOutOfTheBuffer() throws {
        var parser = RequestParser()
        var buffer = InputBuffer(Array("GET / HTTP/1.1\r\nHost: pier\r\nX-Mixed-CASE:\t  spaced  value \t\r\nEmpty:\r\nA: 1\r\nA: 2\r\n\r\n".utf8))
        guard case .request(let request, _) = parser.next(from: &buffer) else { return XCTFail("parsed") }
        buffer = InputBuffer(Array(repeating: UInt8(ascii: "z"), count: 200))  // what the request came from is gone
        XCTAssertEqual(request.headers.map(\.name), ["host", "x-mixed-case", "empty", "a", "a"])
        XCTAssertEqual(request.headers["x-mixed-case"], "spaced  value")
        XCTAssertEqual(request.headers["empty"], "")
        XCTAssertEqual(request.headers.values("a"), ["1", "2"])
        XCTAssertEqual(request.headers["Host"], "pier")
    }

    func testConnectionTokensAreReadWithoutCaseAndAroundCommas() {
        func tokens(_ value: String) -> (Bool, Bool) {
            let bytes = Array(value.utf8)
            let result = bytes.withUnsafeBufferPointer { HeadParser.connectionTokens($0) }
            return (result.close, result.keepAlive)
        }
        XCTAssertTrue(tokens("close") == (true, false))
        XCTAssertTrue(tokens("Keep-Alive") == (false, true))
        XCTAssertTrue(tokens(" upgrade ,\tCLOSE , keep-alive") == (true, true))
        XCTAssertTrue(tokens("closed, keep-alives, ,") == (false, false))
        XCTAssertTrue(tokens("") == (false, false))
    }

    /// A prepared answer is written byte for byte as the same answer encoded field by field, and any change to it
    /// drops what was prepared.
    func testAPreparedHeadEncodesTheSameBytesAndOnlyAChangeOfTheHeadDropsIt() {
        var response = HTTPResponse.json(Array("{\"a\":1}".utf8), headers: ["Cache-Control": "public", "Date": "dropped", "X-Bad": "a\r\nb"])
        response.headers.add("content-length", "99")
        let date = Array("Wed, 02 Dec 2026 12:00:00 GMT".utf8)
        func encoded(_ response: HTTPResponse, keepAlive: Bool = true, cors: Bool = false, omitBody: Bool = false) -> String {
            var out: [UInt8] = []
            ResponseEncoder.encode(response, into: &out, date: date, keepAlive: keepAlive, http10: false, omitBody: omitBody, cors: cors)
            return String(decoding: out, as: UTF8.self)
        }
        let prepared = response.preparedForSending()
        XCTAssertNotNil(prepared.prepared)
        for (keepAlive, cors, omitBody) in [(true, false, false), (false, true, false), (true, true, true)] {
            XCTAssertEqual(encoded(prepared, keepAlive: keepAlive, cors: cors, omitBody: omitBody), encoded(response, keepAlive: keepAlive, cors: cors, omitBody: omitBody))
        }
        XCTAssertEqual(
            encoded(prepared),
            "HTTP/1.1 200 OK\r\nServer: pier\r\nDate: Wed, 02 Dec 2026 12:00:00 GMT\r\nCache-Control: public\r\nX-Bad: a  b\r\n"
                + "Content-Type: application/json; charset=utf-8\r\nContent-Length: 7\r\n\r\n{\"a\":1}")
        var changed = prepared
        changed.body = Array("{}".utf8)
        XCTAssertNotNil(changed.prepared, "a new body keeps the head: its length is written at the send")
        XCTAssertTrue(encoded(changed).contains("Content-Length: 2\r\n"))
        XCTAssertEqual(encoded(changed), encoded(HTTPResponse(status: changed.status, headers: changed.headers, body: changed.body)))
        for length in [0, 7, 10, 12_345] {
            changed.body = Array(repeating: 0x61, count: length)
            XCTAssertEqual(encoded(changed), encoded(HTTPResponse(status: changed.status, headers: changed.headers, body: changed.body)))
            XCTAssertEqual(encoded(changed, omitBody: true), encoded(HTTPResponse(status: changed.status, headers: changed.headers, body: changed.body), omitBody: true))
        }
        changed = prepared
        changed.headers.add("X-Late", "1")
        XCTAssertNil(changed.prepared)
        changed = prepared
        changed.status = .notFound
        XCTAssertNil(changed.prepared)
        XCTAssertTrue(encoded(changed).hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        var notModified = HTTPResponse(status: .notModified, headers: ["ETag": "\"x\""]).preparedForSending()
        XCTAssertFalse(encoded(notModified).contains("Content-Length"), "a 304 carries no length")
        notModified.status = HTTPStatus(code: 299, reason: "Odd")
        XCTAssertTrue(encoded(notModified).hasPrefix("HTTP/1.1 299 Odd\r\n"))
        // Every length's digits; a long value with CR and LF past its sixteenth byte; many fields: one run each.
        for length in [0, 1, 9, 10, 99, 100, 12_345, 1_000_000] {
            XCTAssertTrue(encoded(HTTPResponse(status: .ok, body: Array(repeating: 0x61, count: length))).contains("\r\nContent-Length: \(length)\r\n\r\n"))
        }
        var long = HTTPResponse(status: .ok, headers: ["X-Long": String(repeating: "v", count: 40) + "\r\nX-Evil: 1\n" + String(repeating: "w", count: 20)])
        for index in 0..<30 { long.headers.add("X-\(index)", String(repeating: "z", count: index)) }
        let text = encoded(long)
        XCTAssertTrue(text.contains("X-Long: " + String(repeating: "v", count: 40) + "  X-Evil: 1 " + String(repeating: "w", count: 20) + "\r\n"), text)
        XCTAssertTrue(text.contains("\r\nX-0: \r\nX-1: z\r\n"))
        XCTAssertTrue(text.contains("\r\nX-29: " + String(repeating: "z", count: 29) + "\r\nContent-Length: 0\r\n\r\n"))
    }
}

/// Free text collapsed at its bytes says what splitting its characters said, for any text.
final class QueryTextTests: XCTestCase {
    private func reference(_ text: String, _ extra: ClosedRange<UInt32>?, _ joiner: String) -> String {
        text.split { $0.isWhitespace || $0.unicodeScalars.allSatisfy { extra?.contains($0.value) == true } }.joined(separator: joiner)
    }

    func testTheBytesGiveTheWordsTheCharactersGive() {
        let pieces = [
            "a", "Z", "ü", "ö", "é", "Nürnberg", "_", " ", "  ", "\t", "\n", "\r\n", "\r", "\u{0B}", "\u{0C}", "\u{1C}", "\u{1F}",
            "\u{85}", "\u{A0}", "\u{2FF}", "\u{300}", "\u{301}", "e\u{301}", " \u{301}", "\u{3000}", "\u{2028}", "日本", "👍🏽", "\u{AD}", "x",
            "Ü", "×", "Þ", "ÿ", "Q", "Ā", "Ł", "İ", "ǅ",
        ]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<5_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            // Unicode's whitespace alone, with C0's information separators (queries), with `_` (Wikipedia's titles).
            let extra: ClosedRange<UInt8>? = [QueryText.informationSeparators, nil, UInt8(ascii: "_")...UInt8(ascii: "_")][round % 3]
            let joiner: UInt8 = round % 4 == 0 ? UInt8(ascii: "_") : 0x20
            XCTAssertEqual(
                QueryText.collapsed(text, separatorsBeyondWhitespace: extra, joiner: joiner),
                reference(text, extra.map { UInt32($0.lowerBound)...UInt32($0.upperBound) }, String(UnicodeScalar(joiner))),
                "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            // Lowered in the same pass, from the bytes: the words lower-cased.
            var bytes = text
            XCTAssertEqual(
                bytes.withUTF8 { QueryText.collapsed($0, separatorsBeyondWhitespace: extra, joiner: joiner, lowered: true) },
                reference(text, extra.map { UInt32($0.lowerBound)...UInt32($0.upperBound) }, String(UnicodeScalar(joiner))).lowercased(),
                "lowered: \(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// The bytes' lowering is `lowercased()` for every scalar up to U+00FF, and text beyond it is `lowercased()`'s own.
    func testLoweringLatin1AtTheBytesIsLowercased() {
        func lowered(_ text: String) -> String { QueryText.collapsed(text, lowered: true) }
        for value in UInt32(0)...0xFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            // With a capital beside it (the text is rewritten) and without (a text with nothing to lower is its own).
            for text in ["A\(Character(scalar))z", "a\(Character(scalar))z"] {
                XCTAssertEqual(lowered(text), reference(text, nil, " ").lowercased(), "U+\(String(value, radix: 16))")
            }
        }
        for text in ["NÜRNBERG", "Schöner Brunnen", "ÀÉÎÕÜ×ÞßÿµÅ", "İSTANBUL", "ΑΘΗΝΑ", "Straße", "ǅ", "日本", "Ὀδυσσεύς", ""] {
            XCTAssertEqual(lowered(text), text.lowercased(), text)
        }
    }

    /// Every text this type gives is in NFC, so keys made of it are the same exactly when their bytes are.
    func testTextIsComposedSoKeysCompareByBytes() {
        let composed = "Nürnberg", decomposed = "Nu\u{308}rnberg"
        XCTAssertEqual(Array(QueryText.collapsed(" \(decomposed)  ").utf8), Array(composed.utf8))
        XCTAssertEqual(Array(QueryText.collapsed("NU\u{308}RNBERG", lowered: true).utf8), Array("nürnberg".utf8))
        XCTAssertEqual(Array(QueryText.collapsed(decomposed, separatorsBeyondWhitespace: UInt8(ascii: "_")...UInt8(ascii: "_"), joiner: UInt8(ascii: "_")).utf8), Array(composed.utf8))
        XCTAssertTrue(QueryText.same(QueryText.collapsed(decomposed), composed))
        XCTAssertFalse(QueryText.same(decomposed, composed), "uncomposed text is other bytes: only what this type gave compares")
        XCTAssertFalse(QueryText.same("nürnberg", "nürnberG"))
        XCTAssertFalse(QueryText.same("ab", "abc"))
        XCTAssertTrue(QueryText.same("", ""))
        func hash(_ text: String) -> Int {
            var hasher = Hasher()
            QueryText.hash(text, into: &hasher)
            return hasher.finalize()
        }
        XCTAssertEqual(hash(QueryText.collapsed(decomposed)), hash(composed))
        XCTAssertNotEqual(hash("nürnberg"), hash("nürnberG"))
    }

    /// One word of printable ASCII is its own collapse and lowering at every length, eight bytes at a time, and one
    /// byte that changes the answer at any position is found.
    func testWordsAtEveryLengthAndEveryPosition() {
        for length in 0...40 {
            let word = String((0..<length).map { Character(UnicodeScalar(UInt8(0x61 + $0 % 26))) })
            XCTAssertEqual(QueryText.collapsed(word), word)
            XCTAssertEqual(QueryText.collapsed(word, lowered: true), word)
            for position in 0..<length {
                var bytes = Array(word.utf8)
                for changed: UInt8 in [0x20, 0x09, UInt8(ascii: "_"), UInt8(ascii: "Q"), 0x7F] {
                    bytes[position] = changed
                    let text = String(decoding: bytes, as: UTF8.self)
                    XCTAssertEqual(QueryText.collapsed(text, lowered: true), reference(text, nil, " ").lowercased(), "\(bytes)")
                    for extra: ClosedRange<UInt8>? in [nil, UInt8(ascii: "_")...UInt8(ascii: "_")] {
                        XCTAssertEqual(
                            QueryText.collapsed(text, separatorsBeyondWhitespace: extra),
                            reference(text, extra.map { UInt32($0.lowerBound)...UInt32($0.upperBound) }, " "), "\(bytes)")
                    }
                }
            }
        }
    }

    func testNormalisedRefusesBlankAndLongText() throws {
        XCTAssertEqual(try QueryText.normalised("  Schöner\u{A0}\u{A0}Brunnen \u{1C}", parameter: "q", maximumLength: 20, example: "x"), "Schöner Brunnen")
        XCTAssertThrowsError(try QueryText.normalised(" \u{1D}\u{85} ", parameter: "q", maximumLength: 20, example: "x"))
        XCTAssertThrowsError(try QueryText.normalised(String(repeating: "ü", count: 21), parameter: "q", maximumLength: 20, example: "x"))
        // From a value's bytes, lowered: the same rule, and a value not given is refused as a blank one.
        func normalised(_ text: String?) throws -> String {
            guard var text else { return try QueryText.normalised(nil as String?, parameter: "q", maximumLength: 20, example: "x", lowered: true) }
            return try text.withUTF8 { try QueryText.normalised($0, parameter: "q", maximumLength: 20, example: "x", lowered: true) }
        }
        XCTAssertEqual(try normalised("  Schöner\u{A0}\u{A0}BRUNNEN \u{1C}"), "schöner brunnen")
        XCTAssertEqual(try normalised(String(repeating: "Ü", count: 20)), String(repeating: "ü", count: 20))
        XCTAssertThrowsError(try normalised(String(repeating: "ü", count: 21)))
        XCTAssertThrowsError(try normalised(" \u{1D}\u{85} "))
        XCTAssertThrowsError(try normalised(nil))
    }
}

/// The eight-bytes-at-once answers are the byte-at-a-time ones, for words of bytes at every border the tests draw.
final class ByteWordTests: XCTestCase {
    func testWordAnswersAreTheBytesAnswers() {
        let borders: [UInt8] = [0, 0x1F, 0x20, 0x21, 0x40, 0x41, 0x5A, 0x5B, 0x5E, 0x5F, 0x60, 0x7E, 0x7F, 0x80, 0xC3, 0xFE, 0xFF]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let bytes = (0..<8).map { _ in
                Bool.random(using: &generator) ? borders.randomElement(using: &generator)! : UInt8.random(in: 0x21...0x7E, using: &generator)
            }
            let word = bytes.withUnsafeBufferPointer { ByteWord.load($0.baseAddress!, at: 0) }
            for excluded: UInt8? in [nil, UInt8(ascii: "_")] {
                let printable = bytes.allSatisfy { (0x21...0x7E).contains($0) && $0 != excluded }
                XCTAssertEqual(ByteWord.isPrintable(word, excluding: excluded.map { ByteWord.ones &* UInt64($0) } ?? 0), printable, "\(bytes)")
            }
            guard bytes.allSatisfy({ $0 < 0x80 }) else { continue }
            let capitals = bytes.indices.reduce(UInt64(0)) { $0 | ((0x41...0x5A).contains(bytes[$1]) ? UInt64(0x80) << (8 * UInt64($1)) : 0) }
            XCTAssertEqual(ByteWord.capitalHighs(word), capitals, "\(bytes)")
        }
    }
}
