import Basics
import Foundation
import HTTPServer
import Parsing
@testable import Sun
import Synchronization
import UpstreamTesting
import XCTest


final class SunTimesTests: XCTestCase {
    private struct Reference: Decodable {
        struct Day: Decodable {
            let place: String
            let lat: Double
            let lon: Double
            let date: String
            let solar_noon: Int
            let sunrise: Int?
            let sunset: Int?
            let civil_twilight_begin: Int?
            let civil_twilight_end: Int?
            let nautical_twilight_begin: Int?
            let nautical_twilight_end: Int?
            let astronomical_twilight_begin: Int?
            let astronomical_twilight_end: Int?
            let grazing: [String]?
        }
        let days: [Day]
    }

    /// Every event of every reference day (PyEphem, scripts/fixtures/gen_sun_reference.py) within the
    /// contract's tolerance: 60 s up to 65° of latitude, 120 s above; 15 minutes where the sun only grazes that
    /// horizon (there two correct methods may differ by minutes, or on whether it is crossed at all).
    func testEventsAgreeWithAnIndependentEphemeris() throws {
        let reference = try JSONDecoder().decode(Reference.self, from: Data(Fixtures.bytes("sun", "reference.json")))
        XCTAssertGreaterThanOrEqual(reference.days.count, 25)
        var compared = 0
        for day in reference.days {
            let date = try XCTUnwrap(CalendarDate(day.date))
            let times = SunTimes(date: date, latitude: day.lat, longitude: day.lon)
            let tolerance = abs(day.lat) <= 65 ? 60 : 120
            let events: [(String, Int?, Int?)] = [
                ("solar_noon", times.solarNoon, day.solar_noon),
                ("sunrise", times.sunrise, day.sunrise), ("sunset", times.sunset, day.sunset),
                ("civil_twilight_begin", times.civilTwilight.begin, day.civil_twilight_begin),
                ("civil_twilight_end", times.civilTwilight.end, day.civil_twilight_end),
                ("nautical_twilight_begin", times.nauticalTwilight.begin, day.nautical_twilight_begin),
                ("nautical_twilight_end", times.nauticalTwilight.end, day.nautical_twilight_end),
                ("astronomical_twilight_begin", times.astronomicalTwilight.begin, day.astronomical_twilight_begin),
                ("astronomical_twilight_end", times.astronomicalTwilight.end, day.astronomical_twilight_end),
            ]
            for (name, ours, theirs) in events {
                let label = "\(day.place) \(day.date) \(name)"
                if day.grazing?.contains(name) == true {
                    if let ours, let theirs { XCTAssertLessThanOrEqual(abs(ours - theirs), 900, label) }
                    continue
                }
                guard let ours, let theirs else {
                    XCTAssertEqual(ours == nil, theirs == nil, "\(label): one method has the event, the other not")
                    continue
                }
                XCTAssertLessThanOrEqual(abs(ours - theirs), tolerance, "\(label): \(ours - theirs) s")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 150)
    }

    func testMidnightSunAndPolarNightInUtsjoki() throws {
        let summer = SunTimes(date: try XCTUnwrap(CalendarDate("2026-06-21")), latitude: 69.91, longitude: 27.03)
        XCTAssertNil(summer.sunrise)
        XCTAssertNil(summer.sunset)
        XCTAssertEqual(summer.dayLength, 86_400)
        XCTAssertNil(summer.civilTwilight.begin)
        let winter = SunTimes(date: try XCTUnwrap(CalendarDate("2026-12-21")), latitude: 69.91, longitude: 27.03)
        XCTAssertNil(winter.sunrise)
        XCTAssertNil(winter.sunset)
        XCTAssertEqual(winter.dayLength, 0)
        // The sun stays within 6° below the horizon at noon: civil twilight happens, sunrise does not.
        XCTAssertNotNil(winter.civilTwilight.begin)
        XCTAssertNotNil(winter.civilTwilight.end)
    }

    func testBodyIsTheUpstreamShape() throws {
        let times = SunTimes(date: try XCTUnwrap(CalendarDate("2026-06-21")), latitude: 60.17, longitude: 24.94)
        let body = SunResponse.body(times)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        XCTAssertEqual(object["status"] as? String, "OK")
        XCTAssertEqual(object["tzid"] as? String, "UTC")
        let results = try XCTUnwrap(object["results"] as? [String: Any])
        XCTAssertEqual(results.count, 10)
        XCTAssertEqual(results["day_length"] as? Int, try XCTUnwrap(times.sunset) - (try XCTUnwrap(times.sunrise)))
        // Helsinki at the solstice: the sun never goes 18° below the horizon.
        XCTAssertTrue(results["astronomical_twilight_begin"] is NSNull)
        let sunrise = try XCTUnwrap(results["sunrise"] as? String)
        XCTAssertTrue(sunrise.hasPrefix("2026-06-2"), sunrise)
        XCTAssertTrue(sunrise.hasSuffix("+00:00"), sunrise)
        let formatter = ISO8601DateFormatter()
        XCTAssertEqual(formatter.date(from: sunrise).map { Int($0.timeIntervalSince1970) }, times.sunrise)
    }

    func testTimestampsAcrossEdges() {
        let out = JSONWriter.text { json in
            json.array { json in
                SunResponse.time(0, to: &json)
                SunResponse.time(951_782_400, to: &json)  // 2000-02-29
                SunResponse.time(-1, to: &json)
                SunResponse.time(nil, to: &json)
            }
        }
        XCTAssertEqual(out, #"["1970-01-01T00:00:00+00:00","2000-02-29T00:00:00+00:00","1969-12-31T23:59:59+00:00",null]"#)
    }
}

final class SunRoutesTests: XCTestCase {
    private func get(_ target: String, now: Date = Date(timeIntervalSince1970: 1_795_000_000), headers: HTTPHeaders = HTTPHeaders()) throws -> HTTPResponse {
        var router = Router()
        SunRoutes(now: { now }).register(in: &router)
        let parts = target.split(separator: "?", maxSplits: 1)
        let request = HTTPRequest(
            method: .get, target: target, path: String(parts[0]),
            query: parts.count > 1 ? try XCTUnwrap(QueryParameters(raw: parts[1])) : QueryParameters(), headers: headers)
        guard case .found(let handler, _, _, _, _) = router.match(.get, path: request.path), case .immediate(let answer) = handler else {
            XCTFail("no immediate route for \(target)")
            return HTTPResponse(status: .notFound)
        }
        do { return try answer(request) } catch let error as any HTTPErrorConvertible {
            return error.httpError.response
        }
    }

    func testDatedAnswerIsCachedForADayAndRevalidates() throws {
        let response = try get("/v1/sun?lat=47.37&lng=8.54&date=2026-07-04&formatted=0")
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(response.headers["cache-control"], "public, max-age=86400")
        let tag = try XCTUnwrap(response.headers["etag"])
        let again = try get("/v1/sun?lat=47.37&lon=8.54&date=2026-07-04", headers: ["If-None-Match": tag])
        XCTAssertEqual(again.status, .notModified)
    }

    /// A dated answer is held by the day and point it is for, however they were written; a flood of distinct points
    /// keeps the held answers within their bytes.
    func testDatedAnswersAreHeldByWhatWasAskedWithinTheirBytes() throws {
        let routes = SunRoutes(now: { Date(timeIntervalSince1970: 1_795_000_000) })
        func ask(_ query: String) throws -> HTTPResponse {
            try routes.answer(HTTPRequest(method: .get, target: "/v1/sun?" + query, path: "/v1/sun", query: try XCTUnwrap(QueryParameters(raw: Substring(query)))))
        }
        let first = try ask("lat=47.0&lon=8.5&date=2026-07-04")
        let second = try ask("date=2026-07-04&lat=47.00&lng=8.500")
        XCTAssertEqual(first.body, second.body)
        XCTAssertEqual(routes.dated.count, 1, "one answer for one day and point")
        for index in 0..<12_000 { _ = try ask("lat=\(Double(index) / 1000)&lon=8.5&date=2026-07-04") }
        XCTAssertLessThanOrEqual(routes.dated.bytes, 4 << 20)
        XCTAssertLessThanOrEqual(routes.dated.count, 4096)
    }

    func testTodayLastsUntilUTCMidnight() throws {
        // 1_795_000_000 is 2026-11-18 11:06:40 UTC: 46_400 s to midnight.
        let response = try get("/v1/sun?lat=47.37&lon=8.54")
        XCTAssertEqual(response.headers["cache-control"], "public, max-age=46400")
        let body = String(decoding: response.body, as: UTF8.self)
        XCTAssertTrue(body.contains(#""sunrise":"2026-11-18T"#), body)
    }

    /// Today's answer is shared by every request for its point within its second, and a later second gets its own
    /// (its max-age is one less); the clock here is a test's, moved by hand.
    func testTodaysAnswerIsSharedWithinItsSecondAndNotAfter() throws {
        let clock = Mutex(1_795_000_000.25)
        let routes = SunRoutes(now: { Date(timeIntervalSince1970: clock.withLock { $0 }) })
        func ask() throws -> HTTPResponse {
            try routes.answer(HTTPRequest(method: .get, target: "/v1/sun", path: "/v1/sun", query: try XCTUnwrap(QueryParameters(raw: "lat=47.37&lon=8.54"))))
        }
        XCTAssertEqual(try ask().headers["cache-control"], "public, max-age=46399")
        XCTAssertEqual(routes.today.count, 1)
        clock.withLock { $0 = 1_795_000_000.75 }
        XCTAssertEqual(try ask().headers["cache-control"], "public, max-age=46399", "the same second")
        clock.withLock { $0 = 1_795_000_001.0 }
        XCTAssertEqual(try ask().headers["cache-control"], "public, max-age=46399", "a whole second counts from itself")
        clock.withLock { $0 = 1_795_000_001.5 }
        XCTAssertEqual(try ask().headers["cache-control"], "public, max-age=46398", "the next second: one less")
        clock.withLock { $0 = 1_795_046_399.5 }
        let lastSecond = try ask()
        XCTAssertEqual(lastSecond.headers["cache-control"], "public, max-age=1")
        clock.withLock { $0 = 1_795_046_400.5 }
        let tomorrow = try ask()
        XCTAssertEqual(tomorrow.headers["cache-control"], "public, max-age=86399")
        XCTAssertNotEqual(lastSecond.body, tomorrow.body, "another day's times")
    }

    func testBadInputIs400NamingTheParameter() throws {
        for (target, word) in [
            ("/v1/sun?lat=47.37&lon=8.54&date=2026-02-30", "date"), ("/v1/sun?lat=91&lon=8.54", "lat"),
            ("/v1/sun?lat=47&lng=abc", "lng"), ("/v1/sun?lon=8", "lat"), ("/v1/sun?lat=47.37&lon=nan", "lon"),
        ] {
            let response = try get(target)
            XCTAssertEqual(response.status, .badRequest, target)
            XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains(word), target)
        }
    }
}
