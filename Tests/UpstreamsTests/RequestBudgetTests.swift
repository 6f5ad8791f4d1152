import Basics
import Foundation
import Limits
import Synchronization
import XCTest

final class RequestBudgetTests: XCTestCase {
    final class Clock: Sendable {
        private let seconds = Mutex(0.0)
        func advance(_ delta: Double) { seconds.withLock { $0 += delta } }
        var now: Double { seconds.withLock { $0 } }
    }

    func testABucketHoldsItsBurstAndRefillsAtItsRate() {
        var bucket = TokenBucket(ratePerSecond: 1, capacity: 3, now: 0)
        XCTAssertEqual((0..<5).filter { _ in bucket.take(now: 0) }.count, 3, "the burst")
        XCTAssertEqual(bucket.secondsUntilToken(now: 0), 1, accuracy: 1e-9)
        XCTAssertEqual(bucket.secondsUntilToken(now: 0.25), 0.75, accuracy: 1e-9)
        XCTAssertFalse(bucket.take(now: 0.5))
        XCTAssertTrue(bucket.take(now: 1.0))
        XCTAssertFalse(bucket.isFull(now: 1.0))
        XCTAssertTrue(bucket.isFull(now: 100), "never more than the capacity")
        XCTAssertEqual((0..<10).filter { _ in bucket.take(now: 100) }.count, 3)

        // Over any interval: at most capacity + rate × elapsed.
        var counted = TokenBucket(ratePerSecond: 2, capacity: 5, now: 0)
        var taken = 0
        for step in 0...1000 where counted.take(now: Double(step) * 0.01) { taken += 1 }
        XCTAssertLessThanOrEqual(taken, 5 + 20)
        XCTAssertGreaterThanOrEqual(taken, 5 + 19)

        var never = TokenBucket(ratePerSecond: 0, capacity: 0, now: 0)
        XCTAssertFalse(never.take(now: 1e9))
        XCTAssertEqual(never.secondsUntilToken(now: 0), .infinity)
    }

    /// A request of many units (a write of many rows) passes on one token and leaves the rest as a debt: the next
    /// waits until it is paid, so the cost is paid in full whatever the bucket's capacity.
    func testARequestOfManyUnitsIsPaidInFullAsADebt() {
        let clock = Clock()
        let budget = RequestBudget<String>(.init(ratePerMinute: 1200, burst: 400, clientShare: 0.1), clock: { clock.now })
        // The client's bucket: 40 at once, 2 a second.
        XCTAssertEqual(budget.acquire(for: ["rider"], units: 100), .granted)
        guard case .refused(.clientShare, let wait, _) = budget.acquire(for: ["rider"]) else { return XCTFail("the debt is not paid") }
        XCTAssertEqual(wait, 30.5, accuracy: 0.01, "61 units at 2 a second")
        clock.advance(30.5)
        XCTAssertEqual(budget.acquire(for: ["rider"]), .granted)
        // Charged after the fact (a delete's rows), refusing nothing: the next waits for it.
        clock.advance(100)
        budget.charge(["rider"], units: 60)
        XCTAssertNotEqual(budget.acquire(for: ["rider"]), .granted)
        XCTAssertEqual(budget.acquire(for: ["other"]), .granted, "another client's share is its own")
    }

    func testOneClientGetsItsShareAndTheOthersTheRest() {
        let clock = Clock()
        let budget = RequestBudget<String>(.init(ratePerMinute: 60, burst: 8, clientShare: 0.25), clock: { clock.now })
        XCTAssertEqual((0..<5).map { _ in budget.acquire(for: "a") }.filter { $0 == .granted }.count, 2)
        XCTAssertEqual(budget.acquire(for: "a"), .refused(.clientShare, retryAfter: 4, by: 0))
        XCTAssertEqual((0..<5).map { _ in budget.acquire(for: "b") }.filter { $0 == .granted }.count, 2)
        XCTAssertEqual((0..<5).map { _ in budget.acquire(for: nil) }.filter { $0 == .granted }.count, 4, "unattributed: only the shared bucket")
        XCTAssertEqual(budget.acquire(for: "c"), .refused(.budget, retryAfter: 1), "everything spent: the shared bucket decides")
        var snapshot = budget.snapshot()
        XCTAssertEqual(snapshot.granted, 8)
        XCTAssertEqual(snapshot.refused[.clientShare], 7)
        XCTAssertEqual(snapshot.refused[.budget], 2)
        XCTAssertEqual(snapshot.clients, 2)

        clock.advance(1)
        XCTAssertEqual(budget.acquire(for: "c"), .granted, "a new client after a second")
        XCTAssertEqual(budget.retryAfter(for: "b"), 3, accuracy: 1e-9, "b's share refills at a quarter token a second")
        XCTAssertEqual(budget.retryAfter(for: "d"), 1, accuracy: 1e-9, "a new client waits for the shared bucket")
        clock.advance(60)
        snapshot = budget.snapshot()
        XCTAssertEqual(snapshot.tokens, 8)
        XCTAssertEqual(snapshot.clients, 0, "full client buckets are forgotten")
        XCTAssertEqual(snapshot.secondsUntilToken, 0)
    }

    func testARateOfZeroRefusesEverything() {
        let budget = RequestBudget<String>(.init(ratePerMinute: 0, burst: 20, clientShare: 1), clock: { 0 })
        guard case .refused(.budget, let retryAfter, _) = budget.acquire(for: "a") else { return XCTFail("refused") }
        XCTAssertEqual(retryAfter, .infinity)
    }
}

final class ClientGroupLimitsTests: XCTestCase {
    func testANetworkHasOneShareWhateverNumberOfAddressesItUses() throws {
        let budget = RequestBudget<ClientGroup>(.init(ratePerMinute: 60, burst: 8, clientShare: 0.25), clock: { 0 })
        // Two tokens per group: the /24 is spent after two addresses took one each, and a third address is refused
        // by its network (the group at position 1).
        XCTAssertEqual(budget.acquire(for: IPAddress("198.51.100.1")!.groups), .granted)
        XCTAssertEqual(budget.acquire(for: IPAddress("198.51.100.2")!.groups), .granted)
        XCTAssertEqual(budget.acquire(for: IPAddress("198.51.100.3")!.groups), .refused(.clientShare, retryAfter: 4, by: 1))
        XCTAssertEqual(budget.acquire(for: IPAddress("203.0.113.1")!.groups), .granted, "another network")
        XCTAssertEqual(budget.acquire(for: IPAddress("2001:db8:0:1::1")!.groups), .granted)
        XCTAssertEqual(budget.acquire(for: IPAddress("2001:db8:0:2::1")!.groups), .granted)
        XCTAssertEqual(budget.acquire(for: IPAddress("2001:db8:0:3::1")!.groups), .refused(.clientShare, retryAfter: 4, by: 1), "one /56")
        XCTAssertEqual(IPAddress("2001:db8:0:3::1")!.groups.map(\.description), ["2001:db8:0:3::/64", "2001:db8::/56", "2001:db8::/48"])
    }

    /// One token a second for a client, two at once; a client waits up to 1.5 s for its turn, two of its calls at most.
    private func gate() -> (UpstreamLimits<ClientGroup>, UpstreamGate<Int, ClientGroup, Int>) {
        let limits = UpstreamLimits<ClientGroup>(
            budget: .init(ratePerMinute: 120, burst: 4, clientShare: 0.5), waiting: .init(maxWait: 1.5, waitingPerClient: 2),
            clock: { Double(MonotonicClock.now()) / 1e9 })
        return (limits, UpstreamGate(limits: limits))
    }

    func testABurstALittleAheadOfItsShareWaitsForItsTurnAndAFloodIsRefused() async throws {
        // The third request of a burst waits about a second instead of a 429.
        let (limits, gate) = gate()
        let groups = IPAddress("198.51.100.7")!.groups
        let started = Date()
        let answered = await withTaskGroup(of: Bool.self) { group in
            for key in 0..<3 {
                group.addTask { if case .answered = await gate.call(key, clients: groups, { key }) { true } else { false } }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        XCTAssertEqual(answered, 3)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.4, "the third waited for its token")
        // Far ahead (tokens for seconds to come): refused at once, with the wait.
        let flood = await withTaskGroup(of: Double?.self) { group in
            for key in 10..<16 {
                group.addTask { if case .refused(let refused) = await gate.call(key, clients: groups, { key }) { refused.retryAfter } else { nil } }
            }
            return await group.reduce(into: [Double?]()) { $0.append($1) }
        }
        XCTAssertGreaterThanOrEqual(flood.compactMap { $0 }.count, 3, "at most two wait, and only for a turn within 1.5 s")
        XCTAssertNil(limits.precheck(IPAddress("203.0.113.1")!.groups), "another client is not held up")
    }

    func testCallersJoiningACallWaitingForItsTurnSpendNothing() async throws {
        let (_, gate) = gate()
        let app = IPAddress("198.51.100.7")!.groups
        let calls = Calls()
        for key in 0..<2 { guard case .answered = await gate.call(key, clients: app, { key }) else { return XCTFail("its share") } }
        // Its share spent for a second: the call for key 2 waits its turn, and ten callers for key 2 wait with it.
        let answered = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    if case .answered = await gate.call(2, clients: app, { calls.count() }) { true } else { false }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        XCTAssertEqual(answered, 10, "none refused although two may wait")
        XCTAssertEqual(calls.made, 1)

    }

    func testAClientAndItsNetworkHaveABoundedNumberOfRequestsUnderWay() {
        let limits = UpstreamLimits<ClientGroup>(budget: .init(), waiting: .init(requestsPerClient: 2), clock: { 0 })
        let client = IPAddress("2001:db8:0:1::7")!.groups
        XCTAssertTrue(limits.start(client))
        XCTAssertTrue(limits.start(client))
        XCTAssertFalse(limits.start(client))
        XCTAssertEqual(limits.busiest(client), 0)
        limits.finished(client)
        XCTAssertTrue(limits.start(client))
        // Other /64s of the same /56: the network may have four times as many (8), whatever its subscribers.
        var started = 2
        for index in 2..<10 where limits.start(IPAddress("2001:db8:0:\(index)::7")!.groups) { started += 1 }
        XCTAssertEqual(started, 8)
        XCTAssertEqual(limits.busiest(IPAddress("2001:db8:0:20::7")!.groups), 1, "the /56 is full")
        XCTAssertEqual(limits.precheck(IPAddress("2001:db8:0:20::7")!.groups)?.refusal, .concurrency, "refused before any work")
    }
}

/// Calls made by a gate's work.
private final class Calls: Sendable {
    private let counted = Mutex(0)
    func count() -> Int { counted.withLock { $0 += 1; return 2 } }
    var made: Int { counted.withLock { $0 } }
}
