import DatabaseTesting
import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// FMI's warnings from the real binary: the feed read by the fetcher into PostGIS (the local double plays
/// alerts.fmi.fi), `/v1/warnings` at points and places, `warnings` in `/v1/weather`, a failing feed.
final class WarningsEndToEndTests: EndToEndTestCase {
    struct Warning: Decodable, Equatable {
        let id: String
        let event: String
        let event_code: String
        let severity: String
        let color: String
        let onset: String
        let expires: String
        let headline: String
        let description: String
        let web: String
        let language: String
    }

    struct Warnings: Decodable {
        struct Location: Decodable, Equatable { let name: String; let lat: Double; let lon: Double }
        let warnings: [Warning]
        let updated_at: String
        let location: Location?
    }

    private static let orange = "urn:oid:2.49.0.1.246.0.0.5.4101.2"
    private static let traffic = "urn:oid:2.49.0.1.246.0.0.5.4102.1"

    private func warnings(_ pier: PierProcess, _ query: String) throws -> (RawResponse, Warnings?) {
        let response = try RawClient.request(port: pier.port, "/v1/warnings?\(query)")
        return (response, try? JSONDecoder().decode(Warnings.self, from: Data(response.body)))
    }

    func testWarningsAtAPointInEachLanguageAtAPlaceAndOnTheWeatherScreen() throws {
        let pier = try startPier()
        let first = try waitForData(pier, "/v1/warnings?lat=60.17&lon=24.94")
        let helsinki = try JSONDecoder().decode(Warnings.self, from: Data(first.body))
        XCTAssertEqual(helsinki.warnings.map(\.id), [Self.orange, Self.traffic], "most severe first")
        XCTAssertEqual(helsinki.warnings.map(\.color), ["orange", "yellow"])
        XCTAssertEqual(helsinki.warnings.first?.severity, "severe")
        XCTAssertEqual(helsinki.warnings.first?.language, "en")
        XCTAssertNotNil(try Date(helsinki.updated_at, strategy: Date.ISO8601FormatStyle()))
        XCTAssertTrue(helsinki.warnings.allSatisfy { $0.onset.hasSuffix("Z") && $0.expires.hasSuffix("Z") })
        XCTAssertNil(first.header("X-Pier-Stale"))
        XCTAssertNotNil(first.header("ETag"))

        let (finnish, fi) = try warnings(pier, "lat=60.17&lon=24.94&lang=fi")
        XCTAssertEqual(finnish.status, 200)
        XCTAssertTrue(fi?.warnings.first?.headline.hasPrefix("Oranssi") ?? false, finnish.bodyText)
        // Tampere's warning has no English: its Finnish texts stand in, and say so.
        let (_, tampere) = try warnings(pier, "lat=61.5&lon=23.76&lang=en")
        XCTAssertEqual(tampere?.warnings.map(\.language), ["fi"])
        // Between the two sea polygons, and in Oulu: nothing. Outside Finland: nothing either.
        XCTAssertEqual(try warnings(pier, "lat=59.6&lon=22.7").1?.warnings.count, 0)
        XCTAssertEqual(try warnings(pier, "lat=47.37&lon=8.54").1?.warnings.count, 0)
        XCTAssertEqual(try warnings(pier, "lat=60.17&lon=24.94&lang=de").0.status, 400)
        XCTAssertEqual(try warnings(pier, "lat=91&lon=24.94").0.status, 400)

        let (byName, kumpula) = try warnings(pier, "place=Kumpula")
        XCTAssertEqual(byName.status, 200, byName.bodyText)
        XCTAssertEqual(kumpula?.location?.name, "Kumpula")
        XCTAssertEqual(kumpula?.warnings.map(\.id), [Self.orange, Self.traffic])
        XCTAssertEqual(try warnings(pier, "place=Atlantis").0.status, 404)

        struct Screen: Decodable { let warnings: [Warning] }
        let screen = try waitForData(pier, "/v1/weather?lat=60.17&lon=24.94&lang=sv")
        let decoded = try JSONDecoder().decode(Screen.self, from: Data(screen.body))
        XCTAssertEqual(decoded.warnings.map(\.id), [Self.orange, Self.traffic])
        XCTAssertEqual(decoded.warnings.first?.language, "sv")
        let oulu = try waitForData(pier, "/v1/weather?lat=65.01&lon=25.47")
        XCTAssertTrue(oulu.bodyText.hasSuffix(#","warnings":[]}"#), oulu.bodyText)

        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""in_force":5"#), health)
        XCTAssertFalse(health.contains("60.17") || health.lowercased().contains("kumpula"), "states, not requests")
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_warnings_documents_total{result="read"} 7"#), metrics)
        XCTAssertTrue(metrics.contains("pier_warnings_in_force 5"), metrics)
        XCTAssertTrue(metrics.contains(#"pier_warnings_lookups_total{from="database"}"#), metrics)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testAFailingFeedKeepsTheWarningsMarkedStale() throws {
        let pier = try startPier(["PIER_WARNINGS_INTERVAL_S": "1"])
        _ = try waitForData(pier, "/v1/warnings?lat=60.17&lon=24.94")
        upstream.set(.fmiWarnings, .status(503))
        var response = try RawClient.request(port: pier.port, "/v1/warnings?lat=60.17&lon=24.94")
        let deadline = Date().addingTimeInterval(15)
        while response.header("X-Pier-Stale") == nil, Date() < deadline {
            usleep(200_000)
            response = try RawClient.request(port: pier.port, "/v1/warnings?lat=60.17&lon=24.94")
        }
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("X-Pier-Stale"), "warnings")
        let kept = try JSONDecoder().decode(Warnings.self, from: Data(response.body))
        XCTAssertEqual(kept.warnings.map(\.id), [Self.orange, Self.traffic], "the last set is kept")
        let screen = try RawClient.request(port: pier.port, "/v1/weather?lat=60.17&lon=24.94")
        if screen.status == 200 { XCTAssertEqual(screen.header("X-Pier-Stale"), "warnings") }
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""warnings":{"status":"failing""#) || health.contains(#""warnings":{"status":"stale""#), health)
        XCTAssertEqual(pier.stop(), 0)
    }

    /// The rendered answer is kept for repeats and never outlives the set it was made from: a new publication changes the
    /// answer at the same point at once.
    func testARepeatIsTheSameAnswerAndANewPublicationReplacesIt() throws {
        upstream.set(.fmiWarnings, .previousPublication)
        let pier = try startPier(["PIER_WARNINGS_INTERVAL_S": "1"])
        func identifiers(_ response: RawResponse) throws -> [String] {
            try JSONDecoder().decode(Warnings.self, from: Data(response.body)).warnings.map(\.id)
        }
        func updatedAt(_ response: RawResponse) throws -> String {
            try JSONDecoder().decode(Warnings.self, from: Data(response.body)).updated_at
        }
        let first = try waitForData(pier, "/v1/warnings?lat=60.17&lon=24.94")
        let previous = try identifiers(first)
        XCTAssertFalse(previous.isEmpty)
        let repeated = try RawClient.request(port: pier.port, "/v1/warnings?lat=60.170&lon=24.9400")
        XCTAssertEqual(try identifiers(repeated), previous, "the same point however it is written")
        // The same answer, unless the feed was read again in between (the interval is a second): then a later one.
        XCTAssertTrue(try repeated.header("ETag") == first.header("ETag") || updatedAt(repeated) > updatedAt(first))
        upstream.set(.fmiWarnings, .normal)
        var response = repeated
        let deadline = Date().addingTimeInterval(15)
        while try identifiers(response) == previous, Date() < deadline {
            usleep(200_000)
            response = try RawClient.request(port: pier.port, "/v1/warnings?lat=60.17&lon=24.94")
        }
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(try identifiers(response), [Self.orange, Self.traffic], "the new publication's answer")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testBeforeTheFeedWasEverReadTheRouteSaysSo() throws {
        let pier = try startPier(["PIER_FMI_WARNINGS_URL": "http://127.0.0.1:9/cap/feed/rss_en-GB.rss"])
        let response = try RawClient.request(port: pier.port, "/v1/warnings?lat=60.17&lon=24.94")
        XCTAssertEqual(response.status, 503)
        XCTAssertNotNil(response.header("Retry-After"))
        XCTAssertTrue(response.bodyText.contains("not been read"), response.bodyText)
        XCTAssertEqual(pier.stop(), 0)
    }
}
