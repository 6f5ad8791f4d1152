import Crypto
import DatabaseTesting
import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// A fresh database and a local upstream (every upstream's double) for each test, and `pier serve` pointed at both.
class EndToEndTestCase: XCTestCase {
    /// Whether `condition` holds within `seconds`, asked every 50 ms (a process's state seen from outside).
    func eventually(within seconds: Double = 15, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    var database: TestDatabase!
    var upstream: FixtureUpstream!

    /// Whether the test's database starts with every migration applied (copied from the template, much faster than
    /// pier migrating it at start-up); a test of what pier does to an empty database says no.
    class var startsMigrated: Bool { true }

    override func setUpWithError() throws {
        database = try Self.startsMigrated ? TestDatabase.createMigrated() : TestDatabase.create()
        upstream = try FixtureUpstream()
    }

    override func tearDown() {
        apns?.standIn.stop()
        if let key = apns?.keyFile { try? FileManager.default.removeItem(at: key) }
        apns = nil
        upstream?.stop()
        database?.drop()
    }

    private var apns: (standIn: APNsStandIn, keyFile: URL)?

    /// Apple's push service played by a fresh stand-in (stopped after the test), and the settings that point pier at it
    /// with a key of the test's own.
    func apnsStandIn() throws -> (APNsStandIn, [String: String]) {
        let key = P256.Signing.PrivateKey()
        let standIn = try APNsStandIn(keyID: "KEY1234567", teamID: "TEAM123456", topic: "fi.example.weather", publicKeyPEM: key.publicKey.pemRepresentation)
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("pier-apns-\(UUID().uuidString).p8")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        apns = (standIn, keyFile)
        return (standIn, [
            "PIER_APNS_KEY_FILE": keyFile.path, "PIER_APNS_KEY_ID": "KEY1234567", "PIER_APNS_TEAM_ID": "TEAM123456",
            "PIER_APNS_TOPIC": "fi.example.weather", "PIER_APNS_URL": standIn.origin, "PIER_APNS_CA_FILE": standIn.caFile,
            "PIER_APNS_ALLOW_TEST_CA": "yes",
        ])
    }

    /// Every upstream is its double (``FixtureUpstream/settings``); no pauses, no jitter, short timeouts; `extra` wins. `on`: another
    /// database than the test's own.
    func startPier(_ extra: [String: String] = [:], on other: TestDatabase? = nil) throws -> PierProcess {
        var environment = upstream.settings
        environment.merge([
            "PIER_FETCH_JITTER_S": "0", "PIER_FETCH_TICK_S": "0.5", "PIER_UPSTREAM_TIMEOUT_S": "2", "PIER_REFRESH_TOKEN": "s3cret-token", "LOG_LEVEL": "warning",
        ]) { $1 }
        environment.merge(extra) { $1 }
        let pier = try PierProcess(database: other ?? database, environment: environment)
        XCTAssertTrue(pier.waitUntilServing(), "pier started")
        return pier
    }

    /// Polls `path` until it answers 200 (the first scrape or fetch has landed).
    func waitForData(_ pier: PierProcess, _ path: String, within seconds: Double = 20) throws -> RawResponse {
        let deadline = Date().addingTimeInterval(seconds)
        var last: RawResponse?
        while Date() < deadline {
            last = try RawClient.request(port: pier.port, path)
            if last?.status == 200, let last { return last }
            usleep(50_000)
        }
        XCTFail("\(path) never answered 200; last: \(last?.status ?? 0) \(last?.bodyText ?? "")")
        throw RawClient.Failure.timedOut
    }

    /// Waits until `/health` shows each of `sources` `ok` (its run recorded as finished, so what it feeds into an
    /// answer is in memory), and asserts that they got there.
    func waitForSources(_ pier: PierProcess, _ sources: [String], within seconds: Double = 10) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var statuses: [String: String] = [:]
        repeat {
            let health = try JSONSerialization.jsonObject(with: Data(try RawClient.request(port: pier.port, "/health").body)) as? [String: Any]
            let listed = health?["sources"] as? [String: Any] ?? [:]
            statuses = Dictionary(uniqueKeysWithValues: sources.map { ($0, (listed[$0] as? [String: Any])?["status"] as? String ?? "missing") })
            if statuses.values.contains(where: { $0 != "ok" }) { usleep(20_000) }
        } while statuses.values.contains(where: { $0 != "ok" }) && Date() < deadline
        XCTAssertEqual(statuses, Dictionary(uniqueKeysWithValues: sources.map { ($0, "ok") }))
    }

    /// Asserts that `secret` is in none of `texts` (answers, logs) and none of the JSON files saved under `captures`,
    /// which must hold at least one captured body.
    func assertNeverShown(_ secret: String, in texts: [String], captures: URL) throws {
        let captured = try FileManager.default.subpathsOfDirectory(atPath: captures.path)
        XCTAssertTrue(captured.contains { $0.hasSuffix(".body") }, "\(captured)")
        var texts = texts
        for name in captured where name.hasSuffix(".json") {
            texts.append(try String(contentsOf: captures.appendingPathComponent(name), encoding: .utf8))
        }
        for text in texts { XCTAssertFalse(text.contains(secret), "the key is never shown") }
    }

    /// Asserts what a keyed route does without its key: `path` answers `503` with `error` and `Retry-After: 3600`,
    /// `/health` stays `200` and lists each of `sources` as `disabled`.
    func assertNotConfigured(_ pier: PierProcess, path: String, error: String, sources: [String]) throws {
        let response = try RawClient.request(port: pier.port, path)
        XCTAssertEqual(response.status, 503, path)
        XCTAssertEqual(response.bodyText, #"{"error":"\#(error)"}"#)
        XCTAssertEqual(response.header("retry-after"), "3600")
        let health = try RawClient.request(port: pier.port, "/health")
        XCTAssertEqual(health.status, 200)
        let all = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])?["sources"] as? [String: Any])
        for source in sources { XCTAssertEqual((all[source] as? [String: Any])?["status"] as? String, "disabled", source) }
    }
}
