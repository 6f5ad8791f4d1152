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

    /// Tokens are found by a hash of their last 32 bytes and compared whole: tokens sharing a tail (which signed tokens
    /// never do) are never taken for one another — the later replaces the earlier, which is then verified again — and a
    /// token cut from a request's text finds the one kept.
    func testTokensSharingTheirTailAreNeverConfused() {
        let tokens = VerifiedTokens()
        let rider = CommunityCaller.user(id: "0b5e0000-0000-4000-8000-000000000001", session: nil)
        let other = CommunityCaller.user(id: "0b5e0000-0000-4000-8000-000000000002", session: nil)
        let tail = String(repeating: "s", count: 40)
        tokens.keep(Substring("header.one." + tail), as: rider, until: 1_000)
        XCTAssertEqual(tokens.caller(of: Substring("header.one." + tail), now: 0), rider)
        tokens.keep(Substring("header.two." + tail), as: other, until: 1_000)
        XCTAssertEqual(tokens.caller(of: Substring("header.two." + tail), now: 0), other)
        XCTAssertNil(tokens.caller(of: Substring("header.one." + tail), now: 0), "replaced: verified again, never taken for the other")
        XCTAssertNil(tokens.caller(of: Substring("header.six." + tail), now: 0))
        XCTAssertNil(tokens.caller(of: Substring("header.two." + tail + "s"), now: 0))
        let token = "header.two." + tail
        let request = "Bearer " + token + ", more"
        let cut = request.dropFirst("Bearer ".count).prefix(token.count)
        XCTAssertEqual(tokens.caller(of: cut, now: 0), other)
    }
}
