@testable import HTTPServer
import XCTest

/// ``ByteScan`` reads sixteen bytes at a time and ends with an overlapping load: each answer must be the one a byte at a
/// time gives, for every length around the blocks' edges and a telling byte at every position.
final class ByteScanTests: XCTestCase {
    private func withBytes<T>(_ bytes: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        bytes.withUnsafeBufferPointer(body)
    }

    func testEveryAnswerIsTheOneAByteAtATimeGives() {
        let telling: [UInt8] = [0x00, 0x20, 0x21, 0x25, 0x2B, 0x26, 0x3D, 0x7E, 0x7F, 0x80, 0xFF]
        for length in 0...50 {
            for position in -1..<length {
                for byte in telling {
                    var bytes = Array(repeating: UInt8(ascii: "q"), count: length)
                    if position >= 0 { bytes[position] = byte }
                    withBytes(bytes) { buffer in
                        XCTAssertEqual(
                            ByteScan.all(buffer, within: 0x21, 0x7E), bytes.allSatisfy { (0x21...0x7E).contains($0) }, "all, \(byte) at \(position) of \(length)")
                        XCTAssertEqual(
                            ByteScan.contains(buffer, UInt8(ascii: "%"), or: UInt8(ascii: "+")), bytes.contains { $0 == 0x25 || $0 == 0x2B },
                            "contains, \(byte) at \(position) of \(length)")
                        XCTAssertEqual(
                            ByteScan.first(UInt8(ascii: "&"), in: buffer), bytes.firstIndex(of: 0x26) ?? length, "first, \(byte) at \(position) of \(length)")
                        XCTAssertEqual(
                            ByteScan.first(UInt8(ascii: "&"), in: buffer, from: max(0, position)),
                            bytes[min(length, max(0, position))...].firstIndex(of: 0x26) ?? length, "first from, \(byte) at \(position) of \(length)")
                    }
                }
            }
        }
    }
}
