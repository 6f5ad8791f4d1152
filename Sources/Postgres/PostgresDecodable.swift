import Foundation

/// A Swift type a column can be read as, from PostgreSQL's text format.
public protocol PostgresDecodable: Sendable {
    /// Nil when `text` is not a valid value of this type.
    init?(postgresText text: String)
}

extension String: PostgresDecodable {
    public init?(postgresText text: String) { self = text }
}

extension Int: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Int32: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Int64: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Double: PostgresDecodable {
    public init?(postgresText text: String) {
        switch text {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default: self.init(text)
        }
    }
}

extension Bool: PostgresDecodable {
    public init?(postgresText text: String) {
        switch text {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
}

extension Date: PostgresDecodable {
    public init?(postgresText text: String) {
        guard let date = PostgresTimestamp.parse(text) else { return nil }
        self = date
    }
}

extension PostgresBytes: PostgresDecodable {
    /// `bytea` in hex output format (`\x0a1b…`).
    public init?(postgresText text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = Self.hex(utf8[index]), let low = Self.hex(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension PostgresJSON: PostgresDecodable {
    public init?(postgresText text: String) { self.init(Array(text.utf8)) }
}
