import Basics
import HTTPServer
import Identity
import XCTest

/// The identity chain: the trusted-proxy rule, then the features' links, asked per request.
final class SpendersTests: XCTestCase {
    private func request(peer: String, forwardedFor: String? = nil, more: [String] = []) -> HTTPRequest {
        var headers = HTTPHeaders()
        if let forwardedFor { headers.add("x-forwarded-for", forwardedFor) }
        for field in more { headers.add("x-forwarded-for", field) }
        return HTTPRequest(method: .get, target: "/", path: "/", headers: headers, peer: IPAddress(peer)!)
    }

    func testAddressesParseAndPrintInBothFamilies() {
        XCTAssertEqual(IPAddress("192.0.2.7")?.description, "192.0.2.7")
        XCTAssertEqual(IPAddress("192.0.2.7")?.isIPv4, true)
        XCTAssertEqual(IPAddress("::ffff:192.0.2.7"), IPAddress("192.0.2.7"))
        XCTAssertEqual(IPAddress("2001:DB8:0:0:0:0:0:1")?.description, "2001:db8::1")
        XCTAssertEqual(IPAddress("2001:db8::1")?.isIPv4, false)
        for bad in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "unknown", "::g", "1.2.3.4/8", String(repeating: "1", count: 100)] {
            XCTAssertNil(IPAddress(bad), bad)
        }
    }

    func testRangesContainWhatTheirPrefixSays() throws {
        let ten = try XCTUnwrap(AddressRange("10.0.0.0/8"))
        XCTAssertTrue(ten.contains(IPAddress("10.255.1.2")!))
        XCTAssertFalse(ten.contains(IPAddress("11.0.0.1")!))
        XCTAssertEqual(ten.description, "10.0.0.0/8")
        XCTAssertEqual(AddressRange("172.20.5.9/12")?.description, "172.16.0.0/12")
        let local = try XCTUnwrap(AddressRange("fd00::/8"))
        XCTAssertTrue(local.contains(IPAddress("fd12:3456::1")!))
        XCTAssertFalse(local.contains(IPAddress("fe80::1")!))
        XCTAssertTrue(AddressRange("::1")!.contains(IPAddress("::1")!))
        XCTAssertFalse(AddressRange("::1")!.contains(IPAddress("::2")!))
        XCTAssertTrue(AddressRange("0.0.0.0/0")!.contains(IPAddress("203.0.113.9")!))
        XCTAssertFalse(AddressRange("0.0.0.0/0")!.contains(IPAddress("2001:db8::1")!), "an IPv4 range holds only IPv4")
        XCTAssertNil(AddressRange("10.0.0.0/33"))
        XCTAssertNil(AddressRange("10.0.0.0/x"))
        XCTAssertEqual(AddressRange.list(" 10.0.0.0/8, ,::1 ")?.count, 2)
        XCTAssertNil(AddressRange.list("10.0.0.0/8,nonsense"))
        XCTAssertEqual(AddressRange.list("")?.count, 0)
    }

    func testTheClientIsThePeerUnlessATrustedProxyForwardedIt() {
        let clients = TrustedProxies(AddressRange.list("127.0.0.0/8,10.0.0.0/8") ?? [])
        XCTAssertEqual(clients.address(of: request(peer: "203.0.113.9")), IPAddress("203.0.113.9"))
        XCTAssertEqual(clients.address(of: request(peer: "203.0.113.9", forwardedFor: "198.51.100.1")), IPAddress("203.0.113.9"),
                       "an untrusted peer cannot choose its identity")
        XCTAssertEqual(clients.address(of: request(peer: "10.1.2.3", forwardedFor: "198.51.100.1, 10.1.2.3")), IPAddress("198.51.100.1"))
        XCTAssertEqual(clients.address(of: request(peer: "127.0.0.1", forwardedFor: "198.51.100.1:5555")), IPAddress("198.51.100.1"))
        XCTAssertEqual(clients.address(of: request(peer: "127.0.0.1", forwardedFor: "[2001:db8::1]:443")), IPAddress("2001:db8::"))
        XCTAssertEqual(clients.address(of: request(peer: "127.0.0.1", forwardedFor: "unknown")), IPAddress("127.0.0.1"), "garbage: the peer")
        XCTAssertEqual(clients.address(of: request(peer: "127.0.0.1")), IPAddress("127.0.0.1"))
        // One subscriber's IPv6 devices share a /64.
        XCTAssertEqual(clients.address(of: request(peer: "2001:db8:1:2:aaaa::1")), clients.address(of: request(peer: "2001:db8:1:2:bbbb::2")))
        XCTAssertNotEqual(clients.address(of: request(peer: "2001:db8:1:2::1")), clients.address(of: request(peer: "2001:db8:1:3::1")))
        XCTAssertEqual(TrustedProxies([]).address(of: request(peer: "127.0.0.1", forwardedFor: "198.51.100.1")), IPAddress("127.0.0.1"))
    }

    /// A proxy that appends to `X-Forwarded-For` (nginx's `$proxy_add_x_forwarded_for`, cloud load balancers) keeps
    /// what the client wrote on the left: the client is the right-most entry no trusted proxy stands for.
    func testTheClientIsTheRightMostEntryNotATrustedProxy() {
        let clients = TrustedProxies(AddressRange.list("127.0.0.0/8,10.0.0.0/8") ?? [])
        // The client wrote a random left-most entry; the proxy appended the address it saw.
        for forged in ["1.2.3.4", "5.6.7.8", "unknown", "2001:db8::99"] {
            XCTAssertEqual(clients.address(of: request(peer: "127.0.0.1", forwardedFor: "\(forged), 198.51.100.1")), IPAddress("198.51.100.1"), forged)
        }
        // Two trusted hops in front of the client, and the same list split over several fields.
        XCTAssertEqual(clients.address(of: request(peer: "127.0.0.1", forwardedFor: "9.9.9.9, 198.51.100.1, 10.0.0.2, 10.0.0.1")), IPAddress("198.51.100.1"))
        XCTAssertEqual(clients.address(of: request(peer: "127.0.0.1", forwardedFor: "9.9.9.9", more: ["198.51.100.1", "10.0.0.1"])), IPAddress("198.51.100.1"))
        // Only trusted hops: the left-most of them; garbage on the right: the last hop vouched for.
        XCTAssertEqual(clients.address(of: request(peer: "127.0.0.1", forwardedFor: "10.0.0.3, 10.0.0.1")), IPAddress("10.0.0.3"))
        XCTAssertEqual(clients.address(of: request(peer: "127.0.0.1", forwardedFor: "198.51.100.1, 10.0.0.1, garbage")), IPAddress("127.0.0.1"))
    }

    /// A link sees what the ones before it decided (the address first) and may replace it, counting the caller in a
    /// kind of its own (declared by the link's feature, not in Basics); the chain is asked per request, with the links
    /// the executable installed.
    func testTheChainStartsFromTheAddressAndEachLinkDecidesInTurn() throws {
        struct Device: SpenderResolver {
            static let kind = ClientGroup.Kind("test-device", share: .subscriber, isProven: true)
            func spender(of request: HTTPRequest, so spender: Spender) -> Spender {
                request.headers["x-device"] == nil ? spender : Spender(address: spender.address, groups: [ClientGroup(kind: Self.kind, name: "phone")])
            }
        }
        struct Keeps: SpenderResolver {
            func spender(of request: HTTPRequest, so spender: Spender) -> Spender { spender }
        }
        let spenders = Spenders(proxies: TrustedProxies(AddressRange.list("127.0.0.0/8") ?? []), kinds: [Device.kind])
        XCTAssertEqual(spenders.kinds.map(\.label), ["ipv4/32", "ipv4/24", "ipv6/64", "ipv6/56", "ipv6/48", "test-device"])
        let forwarded = request(peer: "127.0.0.1", forwardedFor: "198.51.100.1")
        XCTAssertEqual(spenders.spender(of: forwarded).groups.map(\.description), ["198.51.100.1/32", "198.51.100.0/24"])
        spenders.install([Device(), Keeps()])
        XCTAssertEqual(spenders.spender(of: forwarded).groups.map(\.description), ["198.51.100.1/32", "198.51.100.0/24"], "no credential")
        var device = forwarded
        device.headers.add("x-device", "1")
        let spender = spenders.spender(of: device)
        XCTAssertEqual(spender.groups.map(\.description), ["test-device/phone"])
        XCTAssertTrue(spender.isProven)
        XCTAssertEqual(spender.address, IPAddress("198.51.100.1"), "the address stays for per-network limits")
        XCTAssertEqual(spenders.address(of: device), IPAddress("198.51.100.1"))
    }
}
