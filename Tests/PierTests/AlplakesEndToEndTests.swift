import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// Alplakes through the real binary: the schedule fills `/v1/lake-temperatures` and `/health` per lake;
/// `pier fetch alplakes --once` like the other sources (non-zero on a wrong-shaped answer, `--save` captures).
final class AlplakesEndToEndTests: EndToEndTestCase {
    func testTheScheduleFillsLakeTemperaturesAndHealthPerLake() throws {
        let pier = try startPier()
        _ = try waitForData(pier, "/v1/lake-temperatures")
        // Lakes are served as each arrives; the run is recorded on the board when the last one is in.
        try waitForSources(pier, ["alplakes"])
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""geneva":{"last_success":""#), health)
        let response = try RawClient.request(port: pier.port, "/v1/lake-temperatures")
        let lakes = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["lakes"] as? [[String: Any]])
        XCTAssertEqual(lakes.compactMap { $0["key"] as? String }, FixtureUpstream.alplakesLakes)
        XCTAssertEqual(upstream.requests(.alplakes).count, 2 * FixtureUpstream.alplakesLakes.count, "two calls per lake")
        let drop = try RawClient.request(port: pier.port, "/v1/alplakes/simulations/1d/profile/simstrat/geneva/202611241207")
        XCTAssertEqual(drop.status, 200)
        XCTAssertEqual(drop.header("access-control-allow-origin"), "*")
        XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/alplakes/simulations/1d/profile/simstrat/thun/202611241207").status, 404)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_fetch_runs_total{source="alplakes",outcome="ok"} 1"#), metrics)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testFetchOnceSavesWhatItGotAndFailsOnAWrongShape() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pier-alplakes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = [
            "PIER_ALPLAKES_URL": upstream.alplakesURL, "PIER_ALPLAKES_LAKES": "geneva,upperzurich", "PIER_ALPLAKES_PAUSE_S": "0",
            "LOG_LEVEL": "error",
        ]
        let good = try PierProcess(arguments: ["fetch", "alplakes", "--once", "--save", folder.path], database: database, environment: environment)
        good.process.waitUntilExit()
        XCTAssertEqual(good.process.terminationStatus, 0, good.standardOutput())
        let saved = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".body") }
        XCTAssertEqual(saved.count, 4)
        upstream.set(.alplakes, .json(Array(#"{"detail":"maintenance"}"#.utf8)))
        let bad = try PierProcess(arguments: ["fetch", "alplakes", "--once"], database: database, environment: environment)
        bad.process.waitUntilExit()
        XCTAssertNotEqual(bad.process.terminationStatus, 0)
        XCTAssertTrue(bad.standardOutput().contains("suspect"), bad.standardOutput())
    }
}
