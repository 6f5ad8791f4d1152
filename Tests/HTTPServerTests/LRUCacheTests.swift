import HTTPServer
import XCTest

final class LRUCacheTests: XCTestCase {
    func testTheLeastRecentlyUsedLeaveFirstWhenOverBudget() {
        let cache = LRUCache<Int, String>(budgetBytes: 100)
        for key in 0..<4 { cache.set("v\(key)", for: key, cost: 25) }
        XCTAssertEqual(cache.bytes, 100)
        XCTAssertEqual(cache[0], "v0", "0 used again")
        XCTAssertEqual(cache.peek(1), "v1", "a peek does not count as use")
        let evicted = cache.set("v4", for: 4, cost: 30)
        XCTAssertEqual(evicted, [1, 2])
        XCTAssertEqual(cache.keysByRecency, [4, 0, 3])
        XCTAssertEqual(cache.bytes, 80)
        XCTAssertEqual(cache.evictions, 2)

        cache.set("bigger", for: 3, cost: 60)
        XCTAssertEqual(cache.keysByRecency, [3, 4], "a replaced entry is re-costed and evicts by the new total")
        XCTAssertEqual(cache.bytes, 90)
        cache.set("huge", for: 9, cost: 500)
        XCTAssertNil(cache[9], "an entry larger than the budget is not kept")
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.bytes, 0)

        for key in 0..<1000 { cache.set("\(key)", for: key, cost: 10) }
        XCTAssertEqual(cache.count, 10, "slots are reused")
        XCTAssertEqual(cache.keysByRecency, Array((990..<1000).reversed()))
        var seen: [Int] = []
        cache.peek([995, 5, 999]) { key, _ in seen.append(key) }
        XCTAssertEqual(seen, [995, 999])
        cache.remove(995)
        XCTAssertNil(cache.peek(995))
        XCTAssertEqual(cache.bytes, 90)
        cache.removeAll()
        XCTAssertEqual(cache.count, 0)
    }
}
