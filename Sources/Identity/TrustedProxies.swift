import Basics
import HTTPServer

/// Who a request comes from, for per-client limits: the socket peer, or — when the peer is a trusted proxy
/// (Caddy, a load balancer) — the right-most `X-Forwarded-For` entry that is not a trusted proxy: each proxy appends
/// the address it received the request from, so that entry is the last one a trusted hop vouches for. The
/// left-most entries are whatever the client wrote (nginx's `$proxy_add_x_forwarded_for`, cloud load balancers and
/// Caddy with `trusted_proxies` append to them), so trusting them would let a client be a new one on every request.
///
/// IPv6 clients are grouped by their /64: one subscriber's devices share a /64 and can pick any address in
/// it, so a per-address limit on IPv6 would be no limit. The first link of the identity chain (``Spenders``).
public struct TrustedProxies: Sendable {
    public let ranges: [AddressRange]

    /// Loopback only: a proxy on the same machine (the usual Caddy or nginx in front).
    public static let loopback = ["127.0.0.0/8", "::1"].compactMap { AddressRange($0) }

    public init(_ ranges: [AddressRange] = TrustedProxies.loopback) {
        self.ranges = ranges
    }

    /// The client's address (IPv6 reduced to its /64).
    public func address(of request: HTTPRequest) -> IPAddress {
        var address = request.peer
        if isTrusted(address) {
            // Every X-Forwarded-For field, in order, as one list, walked from the right while the hops are trusted —
            // field by field and entry by entry, without building the list (this runs for every refused request), on
            // UTF-8 bytes (characters would cost a grapheme walk per step).
            walk: for field in request.headers.fields.reversed() where HTTPHeaders.equal(field.name, "x-forwarded-for") {
                var rest = Substring(field.value)
                while true {
                    let entry: Substring
                    if let comma = rest.utf8.lastIndex(of: UInt8(ascii: ",")) {
                        entry = rest[rest.utf8.index(after: comma)...]
                        rest = rest[..<comma]
                    } else {
                        entry = rest
                    }
                    // Garbage (`unknown`, a malformed entry) ends the walk: nothing left of it can be vouched for.
                    guard let hop = Self.address(entry) else { break walk }
                    address = hop
                    if !isTrusted(hop) { break walk }
                    if entry.startIndex == rest.startIndex { break }
                }
            }
        }
        return address.isIPv4 ? address : address.masked(to: 64)
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// An `X-Forwarded-For` entry: `192.0.2.7`, `2001:db8::1`, `[2001:db8::1]:443` or `192.0.2.7:5678`; `nil` when
    /// it is not an address (`unknown`, garbage).
    static func address(_ entry: Substring) -> IPAddress? {
        var text = entry.trimmingWhitespace()
        if text.utf8.first == UInt8(ascii: "[") {
            guard let close = text.utf8.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            text = text[text.utf8.index(after: text.startIndex)..<close]
        } else if let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")),
            !text.utf8[text.utf8.index(after: colon)...].contains(UInt8(ascii: ":"))
        {
            text = text[..<colon]
        }
        return IPAddress(text)
    }
}
