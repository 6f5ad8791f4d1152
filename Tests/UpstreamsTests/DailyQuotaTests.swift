import Basics
import DatabaseTesting
import Foundation
import Limits
import Postgres
import XCTest

/// The daily quota's shares and reserve, counted in real PostgreSQL by two "replicas" (two quota objects).
final class DailyQuotaTests: ServiceTestCase {
    let noon = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18 11:06:40 UTC
    let phone = IPAddress("198.51.100.7")!, neighbour = IPAddress("198.51.100.8")!, elsewhere = IPAddress("203.0.113.9")!

    func quota(limit: Int = 100) -> DailyQuota {
        DailyQuota(upstream: "test", limit: limit, shares: DailyShares(subscriber: 0.05, network: 0.10, reserve: 0.30), pool: pool)
    }

    func testAnAddressAndItsNetworkEachGetTheirShareOfTheDayAcrossReplicas() async throws {
        let first = quota(), second = quota()
        // An address: 5 of 100.
        for _ in 0..<5 { let decision = await first.take(groups: phone.groups, reserved: false, now: noon); XCTAssertEqual(decision, .granted) }
        guard case .shareSpent(by: 0, let retryAfter) = await second.take(groups: phone.groups, reserved: false, now: noon) else {
            return XCTFail("the address's share is spent on every replica")
        }
        XCTAssertGreaterThan(retryAfter, 3600, "until the next day (the route caps Retry-After)")
        // Known in memory now: refused before any database work.
        XCTAssertEqual(second.spentGroup(phone.groups, now: noon)?.index, 0)
        XCTAssertNil(first.spentGroup(neighbour.groups, now: noon))
        // Its /24 has 10: the neighbour gets the other 5, then the network is spent for every address in it.
        for _ in 0..<5 { let decision = await first.take(groups: neighbour.groups, reserved: false, now: noon); XCTAssertEqual(decision, .granted) }
        guard case .shareSpent(by: 1, _) = await first.take(groups: IPAddress("198.51.100.9")!.groups, reserved: false, now: noon) else {
            return XCTFail("the /24's share is spent")
        }
        do { let decision = await first.take(groups: elsewhere.groups, reserved: false, now: noon); XCTAssertEqual(decision, .granted, "another network is not affected") }
        let rows = try await pool.query("SELECT client_group, used FROM upstream_share WHERE upstream = 'test' ORDER BY client_group")
        let counts = try rows.map { "\(try $0.decode(String.self, "client_group"))=\(try $0.decode(Int.self, "used"))" }
        XCTAssertEqual(counts, ["198.51.100.0/24=10", "198.51.100.7/32=5", "198.51.100.8/32=5", "203.0.113.0/24=1", "203.0.113.9/32=1"])
        let day = try await pool.query("SELECT used FROM upstream_quota WHERE upstream = 'test'")
        XCTAssertEqual(try day.first?.decode(Int.self, "used"), 11, "refused takes spent nothing")
    }

    func testIPv6CountsPerSubscriberSiteAndNetwork() async throws {
        let quota = quota()
        // 20 different /64s of one /56: the /56 is one subscriber (5).
        var granted = 0
        for index in 0..<20 {
            let address = try XCTUnwrap(IPAddress("2001:db8:0:\(String(index, radix: 16))::1"))
            if await quota.take(groups: address.groups, reserved: false, now: noon) == .granted { granted += 1 }
        }
        XCTAssertEqual(granted, 5)
        // Other /56s of the same /48: the /48 (a network, 10) is the bound.
        for index in 1..<20 {
            let address = try XCTUnwrap(IPAddress("2001:db8:0:\(String(index * 256, radix: 16))::1"))
            if await quota.take(groups: address.groups, reserved: false, now: noon) == .granted { granted += 1 }
        }
        XCTAssertEqual(granted, 10)
    }

    func testTheReserveIsOnlyForAnswersManyClientsAskedFor() async throws {
        let quota = quota(limit: 10)
        // Unreserved: 10 - 3 = 7 (each call from another network, so no share binds before the day).
        for index in 0..<7 {
            do { let decision = await quota.take(groups: IPAddress("192.0.\(index).1")!.groups, reserved: false, now: noon); XCTAssertEqual(decision, .granted) }
        }
        do { let decision = await quota.take(groups: elsewhere.groups, reserved: false, now: noon); XCTAssertEqual(decision, .spent(retryAfter: 46_400, reserved: true)) }
        do { let decision = await quota.take(groups: elsewhere.groups, reserved: true, now: noon); XCTAssertEqual(decision, .granted, "a popular answer's refresh") }
        XCTAssertEqual(try OrderedJSONEncoder.string(quota.snapshot(now: noon)), #"{"per_day":10,"used_today":8,"left_today":2,"reserve":3}"#)
    }

    func testADatabaseErrorIsNotASpentDay() async throws {
        let quota = quota()
        pool.close()
        do { let decision = await quota.take(groups: phone.groups, now: noon); XCTAssertEqual(decision, .unknown) }
    }
}
