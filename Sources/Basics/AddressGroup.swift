/// One of the address blocks a client is counted in. A request counts against every group its address belongs to,
/// so that a client cannot multiply its share by moving within what one subscriber or one network holds:
/// an IPv4 address and its /24; an IPv6 /64 (one subscriber's devices pick any address in it), /56 (what many
/// providers hand one subscriber) and /48 (one site or a small provider's block).
public struct AddressGroup: Sendable, Hashable, CustomStringConvertible {
    /// A group's size: the prefix length and whether it is one subscriber or a network of them.
    public enum Size: String, Sendable, CaseIterable {
        case ipv4Address = "ipv4/32"
        case ipv4Network = "ipv4/24"
        case ipv6Subscriber = "ipv6/64"
        case ipv6Site = "ipv6/56"
        case ipv6Network = "ipv6/48"

        /// The prefix length in the 128-bit form.
        public var bits: Int {
            switch self {
            case .ipv4Address: 128
            case .ipv4Network: 120
            case .ipv6Subscriber: 64
            case .ipv6Site: 56
            case .ipv6Network: 48
            }
        }

        /// One subscriber (an address, a /64, a /56) rather than a network of many (a /24, a /48).
        public var isSubscriber: Bool {
            switch self {
            case .ipv4Address, .ipv6Subscriber, .ipv6Site: true
            case .ipv4Network, .ipv6Network: false
            }
        }
    }

    /// The group's first address (the client's address with the rest cleared).
    public let prefix: IPAddress
    public let size: Size

    public init(_ address: IPAddress, size: Size) {
        prefix = address.masked(to: size.bits)
        self.size = size
    }

    /// `203.0.113.0/24`, `2001:db8::/48`: CIDR text (no spaces or commas).
    public var description: String {
        prefix.isIPv4 ? "\(prefix)/\(size.bits - 96)" : "\(prefix)/\(size.bits)"
    }
}

extension IPAddress {
    /// The groups this address is counted in, narrowest first.
    public var groups: [AddressGroup] {
        isIPv4
            ? [AddressGroup(self, size: .ipv4Address), AddressGroup(self, size: .ipv4Network)]
            : [AddressGroup(self, size: .ipv6Subscriber), AddressGroup(self, size: .ipv6Site), AddressGroup(self, size: .ipv6Network)]
    }
}
