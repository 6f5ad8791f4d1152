import Basics
import HTTPServer
import Synchronization

/// Who a request counts as, decided once, per request, lazily: its address by the trusted-proxy rule
/// (``TrustedProxies``), then each ``SpenderResolver`` the features contribute. The server core knows only the socket's
/// peer; features ask this chain — and only when a request would spend (a hit never does), so a cached answer pays
/// nothing for it.
///
/// Why a chain asked with the request rather than a per-request context (Hummingbird's request context set by
/// middleware, Go's `r.Context()`): the answer is wanted by few requests (misses) and must cost nothing for the rest, so
/// it is worked out when asked instead of carried by every request; and the links are known only once every feature is
/// made (App Attest is one of them), so the chain is one object the features hold from the start and the executable
/// completes before serving.
public final class Spenders: Sendable {
    public let proxies: TrustedProxies
    /// Every kind of group a spender may be counted in: an address's, then those the features' links name (their
    /// refusals are counted by kind from the start).
    public let kinds: [ClientGroup.Kind]
    private let resolvers = Mutex<[any SpenderResolver]>([])

    /// - Parameter kinds: the kinds the features' links will name (``Feature`` types' `clientKinds`).
    public init(proxies: TrustedProxies = TrustedProxies(), kinds: [ClientGroup.Kind] = []) {
        self.proxies = proxies
        self.kinds = ClientGroup.Kind.addresses + kinds.filter { !ClientGroup.Kind.addresses.contains($0) }
    }

    /// Sets the features' links, in the features' order (the executable, before serving).
    public func install(_ links: [any SpenderResolver]) {
        resolvers.withLock { $0 = links }
    }

    /// Where `request` comes from: the peer, or the client a trusted proxy forwarded (IPv6 per /64).
    public func address(of request: HTTPRequest) -> IPAddress {
        proxies.address(of: request)
    }

    /// Who `request` counts as when it would spend.
    public func spender(of request: HTTPRequest) -> Spender {
        var spender = Spender(address(of: request))
        for link in resolvers.withLock({ $0 }) { spender = link.spender(of: request, so: spender) }
        return spender
    }
}
