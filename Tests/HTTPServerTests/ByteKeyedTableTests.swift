@testable import HTTPServer
import XCTest

/// The router's exact paths (``ByteKeyedTable``): every key is found by its bytes and nothing else is — a key cut
/// short, lengthened, or with one byte changed finds nothing, whatever the table's size.
final class ByteKeyedTableTests: XCTestCase {
    private func index(_ table: ByteKeyedTable<Int>, _ key: String) -> Int? {
        Array(key.utf8).withUnsafeBufferPointer { table.index(of: $0) }
    }

    func testEveryKeyIsFoundAndNothingElse() {
        var table = ByteKeyedTable<Int>()
        XCTAssertNil(index(table, "/"))
        XCTAssertNil(index(table, ""))
        var keys = ["", "/", "/health", "/api/ships", "/v1/nsw/departures", "/v1/wikipedia/de/summary/Schöner Brunnen"]
        keys += (0..<150).map { "/route/\($0)/" + String(repeating: "x", count: $0 % 23) }
        for (value, key) in keys.enumerated() {
            table = table.adding(key, value)
            // Every key added so far is still found, under its own value.
            for (earlier, kept) in keys[...value].enumerated() {
                XCTAssertEqual(table.index(of: kept).map { table.values[$0] }, earlier, "\(kept) after \(key)")
            }
        }
        for key in keys {
            XCTAssertEqual(table[key], keys.firstIndex(of: key))
            // Another key's bytes find that key; any other bytes find nothing.
            let bytes = Array(key.utf8)
            var others = [bytes + [UInt8(ascii: "y")]] + (bytes.isEmpty ? [] : [Array(bytes.dropLast())])
            for position in bytes.indices {
                var changed = bytes
                changed[position] ^= 0x01
                others.append(changed)
            }
            for other in others {
                let found = other.withUnsafeBufferPointer { table.index(of: $0) }
                XCTAssertEqual(found, keys.firstIndex { Array($0.utf8) == other }, "\(other) beside \(key)")
            }
        }
        // A key added again is replaced, not repeated.
        let replaced = table.adding("/health", -1)
        XCTAssertEqual(replaced["/health"], -1)
        XCTAssertEqual(replaced.keys.count, keys.count)
        XCTAssertEqual(table["/health"], 2)
    }
}

private extension ByteKeyedTable {
    func index(of key: String) -> Int? {
        Array(key.utf8).withUnsafeBufferPointer { index(of: $0) }
    }
}
