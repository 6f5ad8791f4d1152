import Foundation
@testable import Parsing
import XCTest

final class JSONScannerTests: XCTestCase {
    func testValidTextIsAcceptedAsJSONSerializationReadsIt() throws {
        let valid = [
            "0", "-0", "1.5e-3", "-12.0E+2", "true", "false", "null", #""""#, #""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#,
            " [ ] ", "{}", #"{"a":[1,{"b":null}],"c":"ü"}"#, "[1,2,[3,[4]]]",
        ]
        for text in valid {
            let node = try JSONScanner.parse(Array(text.utf8))
            XCTAssertEqual(node.range.count, text.trimmingCharacters(in: .whitespaces).utf8.count, text)
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]), text)
        }
        XCTAssertEqual(try JSONScanner.parse(Array(#""\u00e9\ud83d\ude00\n""#.utf8)).string, "é😀\n")
    }

    func testInvalidTextIsRefused() {
        let invalid = [
            "", " ", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "[1,]", "[,1]", "{\"a\"}", "{\"a\":1,}", "{a:1}", "[1 2]",
            "\"abc", "\"a\u{01}\"", #""\x""#, #""\u12""#, #""\udc00""#, #""\ud800x""#, "[1]]", "{} {}", "NaN", "Infinity",
        ]
        for text in invalid {
            XCTAssertThrowsError(try JSONScanner.parse(Array(text.utf8)), text)
        }
        XCTAssertThrowsError(try JSONScanner.parse([0x22, 0xC3, 0x28, 0x22]), "invalid UTF-8 in a string")
        XCTAssertThrowsError(try JSONScanner.parse([0x22, 0xFF, 0x22]), "invalid UTF-8 in a string")
    }

    func testNestingIsBounded() {
        let deep = String(repeating: "[", count: JSONScanner.maximumDepth) + String(repeating: "]", count: JSONScanner.maximumDepth)
        XCTAssertNoThrow(try JSONScanner.parse(Array(deep.utf8)))
        let tooDeep = "[" + deep + "]"
        XCTAssertThrowsError(try JSONScanner.parse(Array(tooDeep.utf8)))
        // A hostile depth is refused, not a stack overflow.
        XCTAssertThrowsError(try JSONScanner.parse(Array(String(repeating: "[", count: 1_000_000).utf8)))
    }
}
