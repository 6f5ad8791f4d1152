/// Who a request counts as when it would spend an upstream's budget or a unit of its daily quota — decided once per
/// request, and only for requests memory cannot answer (the identity chain: the `Identity` module's `Spenders`). To a
/// feature it is opaque: it passes it to the engine and the limits, which count it in its groups — its address's
/// (``IPAddress/groups``), a device's, the anonymous pool — and refuse it when it may not spend at all (a token was
/// required and none valid was shown).
public struct Spender: Sendable {
    /// Where the request comes from (after the trusted-proxy rule): what per-network limits of a route count.
    public let address: IPAddress
    package let groups: [ClientGroup]
    /// Set when this spender may be served what is held but may not spend: the reason, in words, and what counts it.
    package let refusal: Refusal?

    /// Why a spender may not spend, answered `401` by whoever would have spent.
    public struct Refusal: Sendable {
        public let reason: String
        private let counted: (@Sendable () -> Void)?

        public init(_ reason: String, counted: (@Sendable () -> Void)? = nil) {
            self.reason = reason
            self.counted = counted
        }

        /// The reason, counted once more (a spend refused for want of a token).
        public func refused() -> String {
            counted?()
            return reason
        }
    }

    /// A spender from `address` counted in `groups` (an identity's resolver: a device, the anonymous pool).
    package init(address: IPAddress, groups: [ClientGroup], refusal: Refusal? = nil) {
        self.address = address
        self.groups = groups
        self.refusal = refusal
    }

    /// Counted as what its credential proves (an attested app instance, an operator's debug device) rather than by its
    /// address: what limits meant for the anonymous (a network's registrations of the day) leave out.
    public var isProven: Bool {
        groups.contains { $0.kind.isProven }
    }

    /// A spender known by its address alone.
    public init(_ address: IPAddress) {
        self.init(address: address, groups: address.groups)
    }
}
