@testable import Basics
import XCTest

/// ``DecimalText`` reads every decimal as `Double(text)` does, bit for bit: the plain forms by its own path, the rest
/// by `Double(text)`'s.
final class DecimalTextTests: XCTestCase {
    func testTheSameBitsAsDoubleOfTheText() {
        var generator = SystemRandomNumberGenerator()
        var texts = [
            "0", "-0", "-0.0", "0.1", "0.2", "0.3", "47.37", "8.54", "-122.4194", "60.17", "24.94", "90", "-180", "5000",
            "999999999999999", "0.000000000000001", "123456789.012345", "9007199254740993", "1e5", "+1.5", "5.", ".5",
            "1.2.3", "", "-", "abc", "1_000", "inf", "nan", " 1", "1 ", "0x10", "00.50", "-00", "1234567890123456",
        ]
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...17, using: &generator)
            var text = Bool.random(using: &generator) ? "-" : ""
            let point = Int.random(in: 0...digits, using: &generator)
            for index in 0..<digits {
                if index == point && index > 0 { text += "." }
                text += String(Int.random(in: 0...9, using: &generator))
            }
            texts.append(text)
        }
        for text in texts {
            let expected = Double(text)
            let read = DecimalText.double(text)
            XCTAssertEqual(read?.bitPattern, expected?.bitPattern, "'\(text)'")
        }
        XCTAssertNotNil(Array("47.37".utf8).withUnsafeBufferPointer { DecimalText.plain($0) }, "a plain form takes the fast path")
        XCTAssertNil(Array("1e5".utf8).withUnsafeBufferPointer { DecimalText.plain($0) })
        XCTAssertNil(Array("1234567890123456".utf8).withUnsafeBufferPointer { DecimalText.plain($0) }, "16 digits are strtod's")
    }

    /// A whole number read at its bytes is the one `Int(text)` reads, whatever the text: digits up to the 18 that take the
    /// fast path and past them, signs, spaces, decimals, nothing.
    func testTheSameIntegerAsIntOfTheText() {
        let texts = ["0", "007", "5000", "123456789012345678", "1234567890123456789", "9223372036854775807", "9223372036854775808",
                     "+5", "-5", "-0", "", " 5", "5.0", "5e3", "٣", "0x10", String(repeating: "9", count: 40)]
        for text in texts {
            XCTAssertEqual(Array(text.utf8).withUnsafeBufferPointer { DecimalText.integer(bytes: $0) }, Int(text), text)
        }
    }
}
