import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// The bytes and headers of the upstream-backed routes, held to recorded answers (`Tests/Golden/`): every answer
/// whose bytes do not depend on the time of day — the fixtures' places, geocoding, Wikipedia and lake weather, and
/// the errors of every on-demand route — status line, headers in the order sent (without `Date`, `Age` and the
/// seconds of `max-age`, which depend on the clock) and body, cold and then from memory. `PIER_GOLDEN_RECORD=1`
/// writes the files anew (after a change meant to be seen by clients; say so in the contract).
final class GoldenAnswersTests: EndToEndTestCase {
    static let cases: [(name: String, target: String)] = [
        ("lake-weather", "/v1/lake-weather?lat=47.37&lon=8.54"),
        ("lake-weather-units", "/v1/lake-weather?lat=47.37&lon=8.54&units=imperial"),
        ("lake-weather-bad-point", "/v1/lake-weather?lat=abc&lon=8"),
        ("nsw-unknown-stop", "/v1/nsw/departures?stop=X999"),
        ("nsw-no-stop", "/v1/nsw/departures?stop="),
        ("nsw-bad-mode", "/v1/nsw/departures?stop=G203519&mode=plane"),
        ("nsw-bad-date", "/v1/nsw/departures?stop=G203519&date=00000000"),
        ("stationboard-unknown-station", "/v1/stationboard?id=1234567&date=TODAY"),
        ("stationboard-bad-id", "/v1/stationboard?id=abc"),
        ("places", "/v1/places?lat=49.4539&lon=11.0775&radius=5000&categories=tourism.attraction,leisure.park&limit=50&lang=de"),
        ("places-filter", "/v1/places?filter=circle:11.0775,49.4539,5000&categories=tourism.attraction,entertainment.museum,leisure.park"),
        ("places-top-level-category", "/v1/places?lat=49.4539&lon=11.0775&categories=tourism"),
        ("geocode", "/v1/geocode?text=N%C3%BCrnberg"),
        ("geocode-nothing", "/v1/geocode/search?text=Atlantis"),
        ("geocode-empty", "/v1/geocode?text=%20"),
        ("wikipedia-summary", "/v1/wikipedia/de/summary/Sch%C3%B6ner%20Brunnen"),
        ("wikipedia-missing", "/v1/wikipedia/de/summary/Gibt_es_nicht"),
        ("wikipedia-bad-title", "/v1/wikipedia/de/summary/a%7Cb"),
        ("wikipedia-opensearch", "/v1/wikipedia/de/opensearch?search=Sch%C3%B6ner%20Brunnen%20N%C3%BCrnberg&limit=5&namespace=0&format=json"),
        ("wikipedia-opensearch-nothing", "/v1/wikipedia/de/opensearch?search=xyz"),
    ]

    static let folder = ChildProcess.repositoryRoot.appendingPathComponent("Tests/Golden")

    func testTheAnswersAreTheRecordedOnes() throws {
        let pier = try startPier([
            "PIER_FETCH": "off", "PIER_OPENWEATHER_KEY": "golden-key", "PIER_NSW_API_KEY": "golden-key", "PIER_GEOAPIFY_KEY": "golden-key",
            "PIER_CONTACT": "ops@example.org",
        ])
        let record = ProcessInfo.processInfo.environment["PIER_GOLDEN_RECORD"] == "1"
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "Europe/Zurich") ?? .current, formatOptions: [.withFullDate])
        for (name, target) in Self.cases {
            let file = Self.folder.appendingPathComponent(name + ".http")
            let path = target.replacingOccurrences(of: "TODAY", with: today)
            let cold = Self.text(try RawClient.request(port: pier.port, path), target: target)
            let warm = Self.text(try RawClient.request(port: pier.port, path), target: target)
            XCTAssertEqual(cold, warm, "\(name): the answer from memory is the same")
            if record {
                try Data(cold.utf8).write(to: file)
            } else {
                let recorded = try String(contentsOf: file, encoding: .utf8)
                XCTAssertEqual(cold, recorded, "\(name) differs from \(file.lastPathComponent)")
            }
        }
        XCTAssertEqual(pier.stop(), 0)
    }

    /// The request, the status line, the headers as sent (without what depends on the clock) and the body.
    static func text(_ response: RawResponse, target: String) -> String {
        var lines = ["GET \(target)", "\(response.status) \(response.reason)"]
        for (name, value) in response.headers where !["date", "age"].contains(name.lowercased()) {
            lines.append("\(name): " + value.replacingOccurrences(of: #"max-age=[0-9]+"#, with: "max-age=…", options: .regularExpression))
        }
        return lines.joined(separator: "\n") + "\n\n" + response.bodyText + "\n"
    }
}
