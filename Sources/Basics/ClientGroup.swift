import Foundation

/// One of the groups a client is counted in. A request counts against every group its client belongs to, so that a
/// client cannot multiply its share by moving within what one subscriber or one network holds: an IPv4 address and
/// its /24; an IPv6 /64 (one subscriber's devices pick any address in it), /56 (what many providers hand one
/// subscriber) and /48 (one site or a small provider's block). A feature may count the callers it proves in kinds of
/// its own (App Attest: a genuine app instance as itself, the clients without such proof in one pool).
public struct ClientGroup: Sendable, Hashable, CustomStringConvertible {
    /// What kind of group a client is counted in: an address block (the kinds below), or a kind a feature's resolver
    /// names for callers it proves (App Attest's devices, its anonymous pool): declared in that feature, with no edit
    /// here. Told apart by ``label``.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// Which share of an upstream's day a group of the kind may use (``DailyShares``).
        public enum Share: Sendable, Hashable {
            /// One subscriber: an address, an IPv6 /64 or /56, one device.
            case subscriber
            /// A network of many subscribers: an IPv4 /24, an IPv6 /48.
            case network
            /// Every client of the kind together (the anonymous pool).
            case pool
        }

        /// `ipv4/32`, `device`: in metrics (`group="…"`), refusals and a group's description.
        public let label: String
        public let share: Share
        /// Counted as what a credential proves (a device), not by an address: limits meant for the anonymous (a
        /// network's registrations of the day) leave it out.
        public let isProven: Bool
        /// The refusal when a group of the kind spent its share of a day, `{upstream}` where the upstream is named;
        /// `nil`: "this client's address (…) has used its share of …".
        let spentSentence: String?
        /// An address kind's prefix length in the 128-bit form; `nil` for a feature's kind.
        let bits: Int?

        /// A feature's kind of caller.
        public init(_ label: String, share: Share, isProven: Bool = false, spentSentence: String? = nil) {
            self.init(label: label, share: share, isProven: isProven, spentSentence: spentSentence, bits: nil)
        }

        private init(label: String, share: Share, isProven: Bool, spentSentence: String?, bits: Int?) {
            self.label = label
            self.share = share
            self.isProven = isProven
            self.spentSentence = spentSentence
            self.bits = bits
        }

        private static func address(_ label: String, bits: Int, share: Share) -> Kind {
            Kind(label: label, share: share, isProven: false, spentSentence: nil, bits: bits)
        }

        public static let ipv4Address = address("ipv4/32", bits: 128, share: .subscriber)
        public static let ipv4Network = address("ipv4/24", bits: 120, share: .network)
        public static let ipv6Subscriber = address("ipv6/64", bits: 64, share: .subscriber)
        public static let ipv6Site = address("ipv6/56", bits: 56, share: .subscriber)
        public static let ipv6Network = address("ipv6/48", bits: 48, share: .network)
        /// The kinds of an address's groups (``IPAddress/groups``).
        public static let addresses = [ipv4Address, ipv4Network, ipv6Subscriber, ipv6Site, ipv6Network]

        /// One subscriber rather than a network of many or a pool.
        public var isSubscriber: Bool { share == .subscriber }

        public var description: String { label }

        /// Why a request of a group of this kind was refused once its share of `upstream`'s day was spent.
        public func shareSpent(upstream: String) -> String {
            if let spentSentence { return spentSentence.replacingOccurrences(of: "{upstream}", with: upstream) }
            return "this client's \(isSubscriber ? "address" : "network") (\(label)) has used its share of \(upstream)'s daily quota"
        }

        public static func == (left: Kind, right: Kind) -> Bool { left.label == right.label }
        public func hash(into hasher: inout Hasher) { hasher.combine(label) }
    }

    /// An address kind's first address (the client's address with the rest cleared); `::` for a feature's kind.
    public let prefix: IPAddress
    public let kind: Kind
    /// A feature's kind: who in it (a device's key id in hex, a debug device's name) — safe in CIDR-like text, SQL
    /// arrays and metrics; `nil`: the kind's only group (a pool) or an address kind.
    public let name: String?

    public init(_ address: IPAddress, kind: Kind) {
        prefix = address.masked(to: kind.bits ?? 0)
        self.kind = kind
        name = nil
    }

    /// The group `name` of a feature's `kind` (`nil`: the kind's one group, a pool).
    public init(kind: Kind, name: String?) {
        prefix = .unspecified
        self.kind = kind
        self.name = name
    }

    /// `203.0.113.0/24`, `2001:db8::/48`: CIDR text (no spaces or commas); a feature's kind as `<label>/<name>`
    /// (`device/…`), or its label alone for a pool (`anonymous`).
    public var description: String {
        if let bits = kind.bits { return prefix.isIPv4 ? "\(prefix)/\(bits - 96)" : "\(prefix)/\(bits)" }
        return name.map { kind.label + "/" + $0 } ?? kind.label
    }
}

extension IPAddress {
    /// The groups this address is counted in, narrowest first.
    public var groups: [ClientGroup] {
        isIPv4
            ? [ClientGroup(self, kind: .ipv4Address), ClientGroup(self, kind: .ipv4Network)]
            : [ClientGroup(self, kind: .ipv6Subscriber), ClientGroup(self, kind: .ipv6Site), ClientGroup(self, kind: .ipv6Network)]
    }
}

extension IPAddress {
    /// The network this address belongs to (an IPv4 /24, an IPv6 /48): what the per-network limits of a day count.
    public var network: ClientGroup {
        ClientGroup(self, kind: isIPv4 ? .ipv4Network : .ipv6Network)
    }
}
