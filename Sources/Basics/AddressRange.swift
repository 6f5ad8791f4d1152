/// A block of addresses in CIDR notation (`10.0.0.0/8`, `fd00::/8`, or one address), for trusted proxies.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    public let base: IPAddress
    /// Prefix length in the 128-bit form (an IPv4 `/8` is stored as 104).
    public let bits: Int

    /// Parses `address` or `address/prefix`; `nil` when either part is malformed or the prefix is out of range.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(Substring(parts[0])) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var prefix = width
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...width).contains(value) else { return nil }
            prefix = value
        }
        bits = prefix + (128 - width)
        base = address.masked(to: bits)
    }

    public func contains(_ address: IPAddress) -> Bool {
        address.masked(to: bits) == base
    }

    public var description: String {
        base.isIPv4 ? "\(base)/\(bits - 96)" : "\(base)/\(bits)"
    }

    /// Parses a comma-separated list (blank entries ignored); `nil` if any entry is malformed.
    public static func list(_ text: String) -> [AddressRange]? {
        var ranges: [AddressRange] = []
        for entry in text.split(separator: ",") {
            let trimmed = entry.trimmingWhitespace()
            if trimmed.isEmpty { continue }
            guard let range = AddressRange(trimmed) else { return nil }
            ranges.append(range)
        }
        return ranges
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (on UTF-8 bytes: no grapheme walk).
    package func trimmingWhitespace() -> Substring {
        let bytes = utf8
        let blank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else { return self[endIndex...] }
        return self[first..<bytes.index(after: last)]
    }
}
