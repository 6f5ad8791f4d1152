import Foundation

/// A Swift value that can be sent as a query parameter, in PostgreSQL's text format.
///
/// Values always travel as parameters (`$1`, `$2`, …) through `PQexecParams`, never spliced into SQL.
public protocol PostgresEncodable: Sendable {
    /// The text form of the value, or nil for SQL `NULL`.
    var postgresText: String? { get }
}

extension String: PostgresEncodable {
    public var postgresText: String? { self }
}

extension Substring: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int32: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int64: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Double: PostgresEncodable {
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self > 0 ? "Infinity" : "-Infinity" }
        return String(self)
    }
}

extension Bool: PostgresEncodable {
    public var postgresText: String? { self ? "t" : "f" }
}

extension Date: PostgresEncodable {
    /// ISO 8601 in UTC with microseconds, which `timestamptz` reads without loss.
    public var postgresText: String? { PostgresTimestamp.format(self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresText: String? { self?.postgresText }
}

/// Raw bytes for a `bytea` parameter.
public struct PostgresBytes: PostgresEncodable, Equatable {
    public var bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var postgresText: String? {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        out.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A `jsonb` (or `json`) parameter from already-encoded JSON bytes.
public struct PostgresJSON: PostgresEncodable, Equatable {
    public var bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var postgresText: String? { String(decoding: bytes, as: UTF8.self) }
}
