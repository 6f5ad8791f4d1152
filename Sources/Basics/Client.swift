/// Who a request counts as when it would spend an upstream's budget or a unit of its daily quota: the groups it is
/// counted in — its address's (``IPAddress/groups``), a device's, the anonymous pool — and, when it may not spend at
/// all, why (a token was required and none valid was shown). Worked out only for requests memory cannot answer.
public struct Client: Sendable {
    public let groups: [ClientGroup]
    /// Set when this client may be served what is held but may not spend: the reason, in words, and what counts it.
    public let refusal: Refusal?

    /// Why a client may not spend, answered `401` by whoever would have spent.
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

    public init(groups: [ClientGroup], refusal: Refusal? = nil) {
        self.groups = groups
        self.refusal = refusal
    }

    /// A client known by its address alone.
    public init(_ address: IPAddress) {
        self.init(groups: address.groups)
    }
}
