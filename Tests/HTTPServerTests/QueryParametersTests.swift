@testable import HTTPServer
import XCTest

/// ``QueryParameters`` reads the query where it lies, by name, without splitting it first: every answer must be the
/// one the split into decoded pairs gave (the reference below is that split, as the type did it before).
final class QueryParametersTests: XCTestCase {
    /// The decoded pairs, split the old way: at `&`, then at the first `=`, each part decoded; nil when one fails.
    private func reference(_ raw: String) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for segment in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = segment.firstIndex(of: "=")
            let name = equals.map { segment[..<$0] } ?? segment[...]
            let value = equals.map { segment[segment.index(after: $0)...] } ?? ""
            guard let decodedName = PercentDecoding.decode(name, plusIsSpace: true),
                let decodedValue = PercentDecoding.decode(value, plusIsSpace: true)
            else { return nil }
            pairs.append((decodedName, decodedValue))
        }
        return pairs
    }

    private let names = ["a", "b", "lat", "lon", "lng", "ab", "a b", "ü", "", "a=b", "x%", "="]

    private func assertSameAsReference(_ raw: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = reference(raw)
        let fromText = QueryParameters(raw: Substring(raw))
        let fromTarget = parsedQuery(raw)
        XCTAssertEqual(fromText == nil, expected == nil, "valid: \(raw)", file: file, line: line)
        XCTAssertEqual(fromTarget == nil, expected == nil, "valid as a target: \(raw)", file: file, line: line)
        guard let expected else { return }
        for query in [fromText, fromTarget].compactMap({ $0 }) {
            XCTAssertTrue(query.pairs.elementsEqual(expected) { $0 == $1 }, "pairs of \(raw)", file: file, line: line)
            XCTAssertEqual(query.isEmpty, expected.isEmpty, "isEmpty of \(raw)", file: file, line: line)
            for name in names {
                let values = expected.filter { $0.name == name }.map(\.value)
                XCTAssertEqual(query[name], values.first, "\(name) in \(raw)", file: file, line: line)
                XCTAssertEqual(query.contains(name), !values.isEmpty, "contains \(name) in \(raw)", file: file, line: line)
                XCTAssertEqual(query.values(name), values, "values of \(name) in \(raw)", file: file, line: line)
                XCTAssertEqual(query.withValue(name) { Array($0) }, values.first.map { Array($0.utf8) }, "bytes of \(name) in \(raw)", file: file, line: line)
            }
        }
    }

    /// The query as the head parser makes it from a request target (ASCII only: the parser refuses anything else).
    private func parsedQuery(_ raw: String) -> QueryParameters? {
        guard raw.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else { return QueryParameters(raw: Substring(raw)) }
        let target = "/v1/x?" + raw
        let bytes = Array(target.utf8)
        let result = bytes.withUnsafeBufferPointer { HeadParser.decodeTarget($0, text: bytes, method: .get) }
        guard case .success(let (path, query)) = result else { return nil }
        guard case .inTarget(end: 5) = path else {
            XCTFail("the path /v1/x is the target's first five bytes: \(path)")
            return nil
        }
        return query
    }

    func testChosenQueriesAnswerAsTheirPairs() throws {
        for raw in [
            "", "a", "a=", "=", "=1", "a=1", "a=1&b=2", "a=1&a=2", "&&a=1&&", "a&b", "a=1=2", "ab=1&a=2", "a=x&ab=y",
            "lat=47.37&lon=8.54", "lon=8.5&lng=9.1", "lng=9", "latx=1&lat=2", "la=1&lat=2", "a+b=1&a%20b=2", "a=%C3%BC+x",
            "%61=1", "a=1&%61=2", "%C3%BC=u", "ü=raw", "x%25=1", "a%3Db=1", "%3D=eq", "a=%4", "a=%zz", "%=1", "a=%C3",
            "a=%FF", "a=%ED%A0%80", "b=%C3%A9&a=%F0%9F%98%80", "a=+", "+=1", "a&a=", "a=&a=1", "=&aanglng", "=x&aanglng=1",
        ] {
            try assertSameAsReference(raw)
        }
    }

    func testRandomQueriesAnswerAsTheirPairs() throws {
        let pieces = ["a", "b", "l", "at", "on", "ng", "=", "&", "&", "%", "%3D", "%26", "%61", "%C3%BC", "%C3", "+", "1", "%2", "ü", "x"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...9, using: &generator)
            let raw = (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            try assertSameAsReference(raw)
        }
    }

    /// A name written as a literal (`StaticString`) finds what the same name as a `String` finds.
    func testLiteralNamesFindWhatStringsFind() throws {
        for raw in ["lat=47.37&lon=8.54", "lon=1&lat=2&lat=3", "l%61t=5", "lat", "x=1", "", "lat=%C3%BC+x"] {
            let query = try XCTUnwrap(QueryParameters(raw: Substring(raw)))
            XCTAssertEqual(query.withValue(literal: "lat") { Array($0) }, query.withValue("lat") { Array($0) }, raw)
            XCTAssertEqual(query.withValue(literal: "lon") { Array($0) }, query.withValue("lon") { Array($0) }, raw)
            XCTAssertEqual(query.withValue(literal: "l") { Array($0) }, query.withValue("l") { Array($0) }, raw)
            XCTAssertEqual(query[literal: "lat"], query["lat"], raw)
            XCTAssertEqual(query.contains(literal: "lon"), query.contains("lon"), raw)
            XCTAssertEqual(query.contains(literal: "x"), query.contains("x"), raw)
        }
    }

    /// A name that shares a lookup's sign but is not it, and many names: the sign only ever spares a walk.
    func testSignsNeverHideAName() throws {
        let many = (0..<64).map { "n\($0)=\($0)" }.joined(separator: "&")
        let query = try XCTUnwrap(QueryParameters(raw: Substring(many)))
        for index in 0..<64 { XCTAssertEqual(query["n\(index)"], "\(index)") }
        XCTAssertNil(query["n64"])
        XCTAssertNil(query["m1"])
    }

    /// A target longer than 64 KB (limits raised far past the default) keeps its query.
    func testAQueryPastSixtyFourKilobytesIsRead() throws {
        let path = "/" + String(repeating: "p", count: 70_000)
        let target = path + "?a=1&b=2"
        let bytes = Array(target.utf8)
        let result = bytes.withUnsafeBufferPointer { HeadParser.decodeTarget($0, text: bytes, method: .get) }
        guard case .success(let (_, query)) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(query["b"], "2")
        XCTAssertEqual(query["a"], "1")
    }

    /// Percent-decoding copies the runs between escapes whole: every text of a small alphabet (escapes whole, cut short,
    /// not hex; `+`; bytes beyond ASCII) decodes as a byte-at-a-time reference does, with `+` a space or not.
    func testPercentDecodingAgreesWithAByteAtATimeReference() {
        func reference(_ text: String, plusIsSpace: Bool) -> String? {
            let bytes = Array(text.utf8)
            var out: [UInt8] = [], index = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "%"):
                    guard index + 2 < bytes.count, let high = PercentDecoding.hexValue(bytes[index + 1]),
                        let low = PercentDecoding.hexValue(bytes[index + 2])
                    else { return nil }
                    out.append(high << 4 | low)
                    index += 3
                case UInt8(ascii: "+") where plusIsSpace:
                    out.append(UInt8(ascii: " "))
                    index += 1
                default:
                    out.append(bytes[index])
                    index += 1
                }
            }
            return String(validating: out, as: UTF8.self)
        }
        let alphabet = ["a", "%", "+", "2", "0", "C", "3", "B", "c", "g", "ü", "/", "%C3%BC", "%E2%82%AC", "%FF"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "a" }.joined()
            for plusIsSpace in [false, true] {
                XCTAssertEqual(PercentDecoding.decode(Substring(text), plusIsSpace: plusIsSpace), reference(text, plusIsSpace: plusIsSpace), "\(text) \(plusIsSpace)")
            }
        }
        // A query is made exactly when every name and value decodes (its check reads only the runs of escapes).
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...24, using: &generator)).map { _ in (alphabet + ["&", "="]).randomElement(using: &generator) ?? "a" }.joined()
            let decodes = text.split(separator: "&", omittingEmptySubsequences: false).allSatisfy { pair in
                let (name, value) = pair.firstIndex(of: "=").map { (pair[..<$0], pair[pair.index(after: $0)...]) } ?? (pair, "")
                return reference(String(name), plusIsSpace: true) != nil && reference(String(value), plusIsSpace: true) != nil
            }
            XCTAssertEqual(QueryParameters(raw: Substring(text)) != nil, decodes, "query: \(text)")
        }
    }
}
