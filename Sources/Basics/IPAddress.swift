import CSystem

/// An IPv4 or IPv6 address in 16 bytes (IPv4 as an IPv4-mapped IPv6 address, `::ffff:a.b.c.d`), so that one
/// type, one comparison and one prefix mask cover both families.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The first and last eight bytes, big-endian (network order).
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The 16 bytes as `pier_accept` writes them.
    package init(bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        var value = bytes
        let (high, low) = withUnsafeBytes(of: &value) { raw in
            (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
             UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        self.init(high: high, low: low)
    }

    /// Parses dotted IPv4 (`192.0.2.7`) or IPv6 text (`2001:db8::1`, `::ffff:192.0.2.7`); `nil` for anything else.
    public init?(_ text: String) {
        self.init(Substring(text))
    }

    /// The same for a slice of a header (an `X-Forwarded-For` entry): concrete, not generic, since a generic parser
    /// called from another module walks its bytes through witness tables, and this runs for every refused request.
    public init?(_ text: Substring) {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        // The text NUL-terminated in a buffer on the stack (no String made: this runs for every refused request).
        let parsed = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 46) { string in
            var end = 0
            for byte in text.utf8 {
                string[end] = CChar(bitPattern: byte)
                end += 1
            }
            string[end] = 0
            return withUnsafeMutableBytes(of: &bytes) { pier_parse_ip(string.baseAddress, $0.baseAddress?.assumingMemoryBound(to: UInt8.self)) }
        }
        guard parsed == 1 else { return nil }
        self.init(bytes: bytes)
    }

    /// The unspecified address (`::`), for peers that are not IP sockets.
    public static let unspecified = IPAddress(high: 0, low: 0)

    /// True for an IPv4 address (stored IPv4-mapped).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// The address with all but its first `bits` bits cleared (bits count in the 128-bit form, so an IPv4 /24 is 120).
    public func masked(to bits: Int) -> IPAddress {
        let bits = min(max(bits, 0), 128)
        let highMask: UInt64 = bits >= 64 ? .max : (bits == 0 ? 0 : .max << (64 - bits))
        let lowMask: UInt64 = bits <= 64 ? 0 : (bits == 128 ? .max : .max << (128 - bits))
        return IPAddress(high: high & highMask, low: low & lowMask)
    }

    /// Dotted IPv4 for IPv4 addresses, RFC 5952 text for IPv6.
    public var description: String {
        var bytes = (high.bigEndian, low.bigEndian)
        var text = [CChar](repeating: 0, count: 48)
        let formatted = withUnsafeBytes(of: &bytes) { raw in
            text.withUnsafeMutableBufferPointer { buffer in
                pier_format_ip(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.baseAddress, Int32(buffer.count))
            }
        }
        guard formatted != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
