import Foundation
import HTTPServer
@testable import NSWDepartures
import NSWDeparturesFormat
import XCTest


final class DepartureQueryTests: XCTestCase {
    /// Monday 2026-07-06 08:10 in Sydney (AEST, +10).
    let now = Date(timeIntervalSince1970: 1_783_289_400)

    func query(_ target: String) throws -> DepartureQuery {
        let parts = target.split(separator: "?", maxSplits: 1)
        let raw = parts.count > 1 ? parts[1] : ""
        let request = HTTPRequest(method: .get, target: target, path: String(parts[0]), query: try XCTUnwrap(QueryParameters(raw: raw)))
        return try DepartureQuery(request, now: now)
    }

    func status(_ target: String) -> Int? {
        do {
            _ = try query(target)
            return 200
        } catch let error as HTTPError {
            return Int(error.status.code)
        } catch {
            return nil
        }
    }

    func testTheAppsRequestAndItsDefaults() throws {
        let plain = try query("/v1/nsw/departures?stop=G203519&mode=bus")
        XCTAssertEqual(plain.key, "G203519")
        XCTAssertEqual(plain.mode, .bus)
        XCTAssertNil(plain.at)
        XCTAssertEqual(try query("/v1/nsw/departures?stop=203294&mode=lightRail").mode, .lightrail, "the app's own spelling")
        XCTAssertNil(try query("/v1/nsw/departures?stop=203294").mode)
        // The upstream is asked in Sydney time, whatever the server's zone.
        XCTAssertEqual(plain.upstreamTime(now: now).date, "20260706")
        XCTAssertEqual(plain.upstreamTime(now: now).time, "0810")
        // The phone's clock (the app sends date and time) shares the stop's current answer.
        XCTAssertEqual(try query("/v1/nsw/departures?stop=G203519&date=20260706&time=0812").key, "G203519")
        XCTAssertEqual(try query("/v1/nsw/departures?stop=G203519&date=20260706&time=0700").key, "G203519")
        let later = try query("/v1/nsw/departures?stop=G203519&mode=bus&date=20260706&time=1730")
        XCTAssertEqual(later.key, "G203519@20260706T1730")
        XCTAssertEqual(later.upstreamTime(now: now).time, "1730")
        let asked = try XCTUnwrap(later.at)
        XCTAssertEqual(DepartureQuery.instant(asked.date, asked.time).timeIntervalSince(now), 9 * 3600 + 20 * 60)
        XCTAssertEqual(try query("/v1/nsw/departures?stop=G203519&date=20260710").key, "G203519@20260710T0000")
        XCTAssertEqual(try query("/v1/nsw/departures?stop=G203519&time=2100").key, "G203519@20260706T2100")
    }

    func testDaylightSavingTimeIsSydneys() throws {
        // 2026-12-01 09:00 AEDT (+11) = 2026-11-30T22:00:00Z.
        let december = Date(timeIntervalSince1970: 1_796_076_000)
        XCTAssertEqual(DepartureQuery(stop: "1").upstreamTime(now: december).date, "20261201")
        XCTAssertEqual(DepartureQuery(stop: "1").upstreamTime(now: december).time, "0900")
    }

    func testBadParametersAreNamed() {
        for target in [
            "/v1/nsw/departures", "/v1/nsw/departures?stop=", "/v1/nsw/departures?stop=G20%203519", "/v1/nsw/departures?stop=%3Cscript%3E",
            "/v1/nsw/departures?stop=" + String(repeating: "1", count: 41), "/v1/nsw/departures?stop=G203519&mode=tram",
            "/v1/nsw/departures?stop=G203519&date=2026-07-06", "/v1/nsw/departures?stop=G203519&date=20260230",
            "/v1/nsw/departures?stop=G203519&time=2460", "/v1/nsw/departures?stop=G203519&time=810",
            "/v1/nsw/departures?stop=G203519&date=20260601", "/v1/nsw/departures?stop=G203519&date=20270101",
        ] {
            XCTAssertEqual(status(target), 400, target)
        }
        XCTAssertEqual(status("/v1/nsw/departures?stop=G203519&mode=&other=1"), 200)
    }

    /// `mode=` names exactly the requestable modes, in any case; school buses and anything else are refused.
    func testEveryRequestableModeAndNothingElseIsNamed() throws {
        for mode in TransportMode.allCases {
            for spelling in [mode.rawValue, mode.rawValue.uppercased(), mode.rawValue.prefix(1).uppercased() + mode.rawValue.dropFirst()] {
                XCTAssertEqual(TransportMode(request: spelling), TransportMode.requestable.contains(mode) ? mode : nil, spelling)
            }
        }
        for other in ["", "bu", "buss", "b\u{0}s", "tram", "light rail", "lightrai1", "ferrY ", "bÜs"] {
            XCTAssertNil(TransportMode(request: other), other)
        }
        XCTAssertEqual(try query("/v1/nsw/departures?stop=G203519&mode=FERRY").mode, .ferry)
        XCTAssertEqual(try query("/v1/nsw/departures?stop=a-b_c:d.9").key, "a-b_c:d.9")
    }
}
