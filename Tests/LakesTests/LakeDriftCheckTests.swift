import Lakes
@testable import LakesFormat
@testable import MeteoNewsFormat
import XCTest

final class LakeDriftCheckTests: XCTestCase {
    private func lakes(_ count: Int) -> [LakeReading] {
        (0..<count).map { LakeReading(name: "Lake \($0)", temperature: 10, waterLevel: nil) }
    }

    func testRules() {
        XCTAssertNil(LakeDriftCheck.problem(with: lakes(32), previousCount: 0))
        XCTAssertNil(LakeDriftCheck.problem(with: lakes(30), previousCount: 32))
        XCTAssertNil(LakeDriftCheck.problem(with: lakes(16), previousCount: 32))
        XCTAssertTrue(LakeDriftCheck.problem(with: lakes(15), previousCount: 32)?.contains("fewer than half") ?? false)
        XCTAssertTrue(LakeDriftCheck.problem(with: [], previousCount: 0)?.contains("no parsable lake row") ?? false)
    }
}
