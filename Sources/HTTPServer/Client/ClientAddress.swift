/// Who a request comes from, for per-client limits: the socket peer, or — when the peer is a trusted proxy
/// (Caddy, a load balancer) — the left-most `X-Forwarded-For` entry, the client as the first proxy saw it.
///
/// IPv6 clients are grouped by their /64: one subscriber's devices share a /64 and can pick any address in
/// it, so a per-address limit on IPv6 would be no limit.
public struct ClientAddress: Sendable {
    public let trustedProxies: [AddressRange]

    /// Loopback only: a proxy on the same machine (the usual Caddy or nginx in front).
    public static let defaultTrustedProxies = ["127.0.0.0/8", "::1"].compactMap { AddressRange($0) }

    public init(trustedProxies: [AddressRange] = ClientAddress.defaultTrustedProxies) {
        self.trustedProxies = trustedProxies
    }

    /// The client's address (IPv6 reduced to its /64).
    public func client(of request: HTTPRequest) -> IPAddress {
        var address = request.peer
        if trustedProxies.contains(where: { $0.contains(request.peer) }),
            let forwarded = request.headers["x-forwarded-for"], let first = Self.leftmost(forwarded)
        {
            address = first
        }
        return address.isIPv4 ? address : address.masked(to: 64)
    }

    /// The first entry of an `X-Forwarded-For` list: `192.0.2.7`, `2001:db8::1`, `[2001:db8::1]:443` or
    /// `192.0.2.7:5678`; `nil` when it is not an address (`unknown`, garbage).
    static func leftmost(_ header: String) -> IPAddress? {
        guard let entry = header.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first else { return nil }
        var text = entry.trimmingWhitespace()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = text[..<colon]
        }
        return IPAddress(text)
    }
}
