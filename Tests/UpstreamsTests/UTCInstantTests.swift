import Parsing
import XCTest

final class UTCInstantTests: XCTestCase {
    /// 2026-07-05T22:10:00Z.
    static let instant = 1_783_289_400

    func testInstantsAreReadAndWrittenInWholeSecondsUTC() {
        XCTAssertEqual(UTCInstant.parse("2026-07-05T22:10:00Z"), Self.instant)
        XCTAssertEqual(UTCInstant.parse("2026-07-06T08:10:00.750+10:00"), Self.instant)
        XCTAssertEqual(UTCInstant.parse("2026-07-05T21:10:00-01:00"), Self.instant)
        for bad in ["2026-07-05T22:10:00", "2026-07-05", "2026-13-05T22:10:00Z", "2026-07-05T22:10:00+1000", "x026-07-05T22:10:00Z"] {
            XCTAssertNil(UTCInstant.parse(bad), bad)
        }
        XCTAssertEqual(UTCInstant.string(Self.instant), "2026-07-05T22:10:00Z")
        XCTAssertEqual(UTCInstant.string(0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(UTCInstant.string(951_782_400), "2000-02-29T00:00:00Z")
    }

    /// With a fraction: log lines' milliseconds and PostgreSQL parameters' microseconds, zero-padded.
    func testFractionsArePaddedToTheirDigits() {
        XCTAssertEqual(UTCInstant.string(Self.instant, fraction: 7, digits: 3), "2026-07-05T22:10:00.007Z")
        XCTAssertEqual(UTCInstant.string(Self.instant, fraction: 123_456, digits: 6), "2026-07-05T22:10:00.123456Z")
        XCTAssertEqual(UTCInstant.string(0, fraction: 0, digits: 6), "1970-01-01T00:00:00.000000Z")
    }
}
