/// One of the groups a client is counted in. A request counts against every group its client belongs to, so that a
/// client cannot multiply its share by moving within what one subscriber or one network holds: an IPv4 address and
/// its /24; an IPv6 /64 (one subscriber's devices pick any address in it), /56 (what many providers hand one
/// subscriber) and /48 (one site or a small provider's block). A device that proved itself a genuine app instance
/// (App Attest) is counted as itself instead; clients without such proof, where the operator prefers it, also share
/// one anonymous pool.
public struct ClientGroup: Sendable, Hashable, CustomStringConvertible {
    /// A group's size: the prefix length and whether it is one subscriber or a network of them.
    public enum Size: String, Sendable, CaseIterable {
        case ipv4Address = "ipv4/32"
        case ipv4Network = "ipv4/24"
        case ipv6Subscriber = "ipv6/64"
        case ipv6Site = "ipv6/56"
        case ipv6Network = "ipv6/48"
        /// One attested app instance (its key id).
        case device
        /// One debug device an operator named (the Simulator, CI, an extension: App Attest's debug tokens).
        case debugDevice = "debug"
        /// Every client without a device's proof, together.
        case anonymous

        /// The prefix length in the 128-bit form (a device's identity is its 128 bits).
        public var bits: Int {
            switch self {
            case .ipv4Address, .device: 128
            case .debugDevice: 0
            case .ipv4Network: 120
            case .ipv6Subscriber: 64
            case .ipv6Site: 56
            case .ipv6Network: 48
            case .anonymous: 0
            }
        }

        /// One subscriber (an address, a /64, a /56, a device) rather than a network of many (a /24, a /48) or the
        /// anonymous pool.
        public var isSubscriber: Bool {
            switch self {
            case .ipv4Address, .ipv6Subscriber, .ipv6Site, .device, .debugDevice: true
            case .ipv4Network, .ipv6Network, .anonymous: false
            }
        }
    }

    /// The group's first address (the client's address with the rest cleared); a device's first 128 bits of its key
    /// id; `::` for the anonymous pool and a debug device.
    public let prefix: IPAddress
    public let size: Size
    /// A debug device's name (letters, digits, `.`, `_`, `-`: safe in CIDR-like text, SQL arrays and metrics).
    public let name: String?

    public init(_ address: IPAddress, size: Size) {
        prefix = address.masked(to: size.bits)
        self.size = size
        name = nil
    }

    /// The group of the debug device `name` (``isDebugName(_:)``).
    public init(debug name: String) {
        prefix = .unspecified
        size = .debugDevice
        self.name = name
    }

    /// 1 to 64 letters, digits, `.`, `_` or `-`.
    public static func isDebugName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    /// The group of one device: `id` is its key id (SHA-256 of its public key), of which 128 bits identify it.
    public init(device id: [UInt8]) {
        func word(_ range: Range<Int>) -> UInt64 { range.reduce(0) { $0 << 8 | UInt64($1 < id.count ? id[$1] : 0) } }
        prefix = IPAddress(high: word(0..<8), low: word(8..<16))
        size = .device
        name = nil
    }

    /// The pool every client without a device's proof shares.
    public static let anonymous = ClientGroup(.unspecified, size: .anonymous)

    /// `203.0.113.0/24`, `2001:db8::/48`: CIDR text (no spaces or commas); `device/<32 hex digits>`, `debug/<name>`,
    /// `anonymous`.
    public var description: String {
        switch size {
        case .device: "device/" + Self.hex(prefix.high) + Self.hex(prefix.low)
        case .debugDevice: "debug/" + (name ?? "")
        case .anonymous: "anonymous"
        default: prefix.isIPv4 ? "\(prefix)/\(size.bits - 96)" : "\(prefix)/\(size.bits)"
        }
    }

    private static func hex(_ word: UInt64) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension IPAddress {
    /// The groups this address is counted in, narrowest first.
    public var groups: [ClientGroup] {
        isIPv4
            ? [ClientGroup(self, size: .ipv4Address), ClientGroup(self, size: .ipv4Network)]
            : [ClientGroup(self, size: .ipv6Subscriber), ClientGroup(self, size: .ipv6Site), ClientGroup(self, size: .ipv6Network)]
    }
}

extension IPAddress {
    /// The network this address belongs to (an IPv4 /24, an IPv6 /48): what the per-network limits of a day count.
    public var network: ClientGroup {
        ClientGroup(self, size: isIPv4 ? .ipv4Network : .ipv6Network)
    }
}
