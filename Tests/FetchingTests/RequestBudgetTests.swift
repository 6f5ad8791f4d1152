import Fetching
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

    func testOneClientGetsItsShareAndTheOthersTheRest() {
        let clock = Clock()
        let budget = RequestBudget<String>(.init(ratePerMinute: 60, burst: 8, clientShare: 0.25), clock: { clock.now })
        XCTAssertEqual((0..<5).map { _ in budget.acquire(for: "a") }.filter { $0 == .granted }.count, 2)
        XCTAssertEqual(budget.acquire(for: "a"), .refused(.clientShare, retryAfter: 4))
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
        guard case .refused(.budget, let retryAfter) = budget.acquire(for: "a") else { return XCTFail("refused") }
        XCTAssertEqual(retryAfter, .infinity)
    }
}
