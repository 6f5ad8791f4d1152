import Basics
import Foundation
import HTTPServer
import XCTest

/// The one writer's rules: syntax, escaping, numbers — and the sorted layout the apps' answers are encoded in, byte
/// for byte what Foundation's `JSONEncoder` wrote for them before.
final class JSONWriterTests: XCTestCase {
    func testStructureCommasAndNesting() {
        let text = JSONWriter.text { json in
            json.object { json in
                json.member("a", 1)
                json.member("empty", object: { _ in })
                json.member("list", array: { json in
                    json.number(1)
                    json.array { _ in }
                    json.object { $0.member("x", nil as String?) }
                    json.bool(false)
                    json.null()
                })
                json.member("raw", json: Array(#"{"kept":[1,2]}"#.utf8))
                json.member("last", true)
            }
        }
        XCTAssertEqual(text, #"{"a":1,"empty":{},"list":[1,[],{"x":null},false,null],"raw":{"kept":[1,2]},"last":true}"#)
        XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(text.utf8)))
    }

    /// A quote, a backslash, the named controls, every other control as `\u00XX` (lowercase), `/` and UTF-8 as they are;
    /// what JSONSerialization reads back is the text written.
    func testEscaping() throws {
        let text = "q\"b\\n\nr\rt\t\u{0}\u{8}\u{c}\u{1f} /é😀\u{7f}"
        let quoted = JSONWriter.quoted(text)
        XCTAssertEqual(quoted, #""q\"b\\n\nr\rt\t\u0000\u0008\u000c\u001f /é😀"# + "\u{7f}\"")
        let read = try JSONSerialization.jsonObject(with: Data("[\(quoted)]".utf8)) as? [String]
        XCTAssertEqual(read, [text])
        XCTAssertEqual(JSONWriter.quoted(""), #""""#)
        for scalar in (0..<0x20).compactMap(Unicode.Scalar.init) {
            let one = JSONWriter.quoted(String(Character(scalar)))
            XCTAssertEqual(try JSONSerialization.jsonObject(with: Data("[\(one)]".utf8)) as? [String], [String(Character(scalar))])
        }
    }

    func testNumbers() {
        let written = JSONWriter.text { json in
            json.array { json in
                for value in [14.0, 21.3, -0.0, -3.5, 1e-7, 999_999_999_999_999.0, 1e15, 1e20, .nan, .infinity, nil] as [Double?] { json.number(value) }
                json.number(-42)
                json.number(Int.min)
                json.number(described: 60.0)
                json.number(described: 24.9384)
                json.number(described: .nan)
            }
        }
        XCTAssertEqual(written, "[14,21.3,0,-3.5,1e-07,999999999999999,1000000000000000.0,1e+20,null,null,null,-42,-9223372036854775808,60.0,24.9384,null]")
    }

    func testAppendingAndUnescapedStrings() {
        var body = Array("[1,".utf8)
        JSONWriter.append(to: &body) { json in json.string(unescaped: { $0.append(contentsOf: "2026-07-01T00:00:00Z".utf8) }) }
        body.append(UInt8(ascii: "]"))
        XCTAssertEqual(String(decoding: body, as: UTF8.self), #"[1,"2026-07-01T00:00:00Z"]"#)
    }

    struct Answer: Codable, Equatable {
        struct Route: Codable, Equatable {
            var shipName: String?
            var courseNumber: String
            var temperature: Double?
        }

        var lastUpdated: String
        var dailyDeployments: [[Route]]
        var count: Int
        var flag: Bool?
        var note: String?
        var Zebra: Double
        var aB: [String: Int]
    }

    /// The apps' answers (`JSONBody`): keys sorted at every level, absent optionals left out, `/` unescaped — the bytes
    /// Foundation's encoder wrote for the same values.
    func testTheSortedLayoutIsWhatFoundationWrote() throws {
        let answer = Answer(
            lastUpdated: "2026-07-01T02:00:41.512Z",
            dailyDeployments: [[
                .init(shipName: "MS Panta Rhei", courseNumber: "2", temperature: 21.3),
                .init(shipName: nil, courseNumber: "a/b \"c\" é 😀 \n", temperature: -4),
            ], []],
            count: 7, flag: nil, note: "Zürich", Zebra: 0.1 + 0.2, aB: ["b": 2, "a": 1, "Z": 3])
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        XCTAssertEqual(String(decoding: try JSONBody.encode(answer), as: UTF8.self), String(decoding: try foundation.encode(answer), as: UTF8.self))
        XCTAssertEqual(try JSONDecoder().decode(Answer.self, from: Data(try JSONBody.encode(answer))), answer)
    }
}
