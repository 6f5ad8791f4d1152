@testable import NextWave
import XCTest

/// Access tokens verified before: held until they expire, within their bounds.
final class VerifiedTokensTests: XCTestCase {
    func testATokenIsHeldUntilItExpiresAndTheBoundsHold() {
        let tokens = VerifiedTokens(bounds: .init(entries: 3, bytes: 1 << 20))
        let rider = CommunityCaller.user(id: "0b5e0000-0000-4000-8000-000000000001", session: nil)
        tokens.keep("token-a", as: rider, until: 1_000)
        XCTAssertEqual(tokens.caller(of: "token-a", now: 999), rider)
        XCTAssertNil(tokens.caller(of: "token-a", now: 1_000), "expired: verified again (and refused)")
        XCTAssertNil(tokens.caller(of: "token-b", now: 0))
        for n in 0..<3 { tokens.keep(Substring("more-\(n)"), as: rider, until: 1_000) }
        XCTAssertNil(tokens.caller(of: "token-a", now: 0), "past its entries it starts over")
        XCTAssertEqual(tokens.caller(of: "more-2", now: 0), rider)
    }
}
