import AppAttestTesting
import Crypto
import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// App Attest through the real binary, PostgreSQL and the local Geoapify, with a root of the test's own (the
/// test-only setting): a device registers, exchanges assertions for tokens and spends on its own share; tokenless
/// clients are refused (`require`) or share the anonymous pool (`prefer`); a revoked device is refused by the running
/// server; the operator's verifier replays a real device's recording.
final class AppAttestEndToEndTests: EndToEndTestCase {
    let app = "ABCDE12345.org.example.pier"
    let secret = "app-attest-secret-\(UUID().uuidString)"
    var authority: TestAttestationAuthority!
    var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        authority = try TestAttestationAuthority()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pier-app-attest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        super.tearDown()
    }

    func file(_ name: String, _ text: String) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func startAttesting(_ mode: String, _ more: [String: String] = [:]) throws -> PierProcess {
        try startPier(more.merging([
            "PIER_FETCH": "off", "PIER_GEOAPIFY_KEY": "test-key", "PIER_GEOAPIFY_CREDITS_PER_DAY": "200",
            "PIER_GEOAPIFY_REQUESTS_PER_SECOND": "1000", "PIER_GEOAPIFY_BURST": "1000",
            "PIER_APP_ATTEST": mode, "PIER_APP_ATTEST_APPS": "FGHIJ67890.org.example.other, \(app)", "PIER_APP_ATTEST_ENVIRONMENT": "development",
            "PIER_APP_ATTEST_SECRET_FILE": try file("secret", secret + "\n"),
            "PIER_APP_ATTEST_TEST_ROOT_FILE": try file("root.pem", try authority.rootPEM), "PIER_APP_ATTEST_ALLOW_TEST_ROOT": "yes",
        ]) { mine, _ in mine })
    }

    func places(_ pier: PierProcess, _ index: Int, from client: String = "198.51.100.7", token: String? = nil) throws -> RawResponse {
        var headers = [("X-Forwarded-For", client)]
        if let token { headers.append(("X-Pier-App-Token", token)) }
        return try RawClient.request(
            port: pier.port, "/v1/places?lat=\(47.0 + Double(index) * 0.01)&lon=8.5&radius=1000&categories=tourism.attraction&limit=20", headers: headers)
    }

    func post(_ pier: PierProcess, _ path: String, _ object: [String: String] = [:]) throws -> (status: Int, json: [String: Any]) {
        let body = try JSONSerialization.data(withJSONObject: object)
        let response = try RawClient(port: pier.port).request(
            "POST", path, headers: [("Content-Type", "application/json"), ("X-Forwarded-For", "203.0.113.50")], body: Array(body))
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:])
    }

    func challenge(_ pier: PierProcess) throws -> [UInt8] {
        let answer = try post(pier, "/v1/app-attest/challenge")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.json["expires_in"] as? Int, 300)
        let bytes = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(answer.json["challenge"] as? String)))
        XCTAssertEqual(bytes.count, 32)
        return Array(bytes)
    }

    func register(_ device: TestDevice, on pier: PierProcess) throws -> String {
        let answer = try attest(device, on: pier)
        XCTAssertEqual(answer.status, 201, "\(answer.json)")
        XCTAssertEqual(answer.json["expires_in"] as? Int, 3600)
        return try XCTUnwrap(answer.json["token"] as? String)
    }

    /// `POST /register` with `device`'s attestation over a fresh challenge, its chain as `x5c` makes it.
    private func attest(_ device: TestDevice, on pier: PierProcess, x5c: ([[UInt8]]) -> [[UInt8]] = { $0 }) throws -> (status: Int, json: [String: Any]) {
        let challenge = try challenge(pier)
        return try post(pier, "/v1/app-attest/register", [
            "keyId": Data(device.keyID).base64EncodedString(), "challenge": Data(challenge).base64EncodedString(),
            "attestation": Data(try device.attestation(clientData: challenge, authority: authority, x5c: x5c)).base64EncodedString(),
        ])
    }

    /// Issue 53's attack: valid challenges with junk proofs from one address. The shares are asked before anything is
    /// written and a failed proof's challenge is spent in memory only: the flood writes no row, and past the
    /// address's share it is refused.
    func testAJunkProofFloodWritesNothing() throws {
        let pier = try startAttesting("prefer")
        var statuses: [Int: Int] = [:]
        for _ in 0..<40 {
            let challenge = try challenge(pier)
            let answer = try post(pier, "/v1/app-attest/register", [
                "keyId": Data(repeating: 7, count: 32).base64EncodedString(), "challenge": Data(challenge).base64EncodedString(),
                "attestation": Data([0xA0]).base64EncodedString(),
            ])
            statuses[answer.status, default: 0] += 1
        }
        XCTAssertEqual(statuses[201], nil)
        XCTAssertGreaterThan(statuses[429] ?? 0, 0, "\(statuses)")
        let spent = try database.connection().query("SELECT count(*)::int AS n FROM app_attest_spent_challenges")[0].decode(Int.self, "n")
        XCTAssertEqual(spent, 0, "the flood wrote no row")
    }

    func testRequireRefusesSpendingWithoutATokenAndADeviceSpendsWithOne() throws {
        let pier = try startAttesting("require")
        let refused = try places(pier, 0)
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(refused.header("www-authenticate"), "Pier-App-Token")
        XCTAssertTrue(refused.bodyText.contains("send X-Pier-App-Token"), refused.bodyText)
        XCTAssertEqual(upstream.requests(.geoapify).count, 0, "nothing spent")

        var device = TestDevice(app: app)
        let token = try register(device, on: pier)
        XCTAssertEqual(try places(pier, 0, token: token).status, 200)
        XCTAssertEqual(try places(pier, 0).status, 200, "what is held is open to everyone")
        XCTAssertEqual(upstream.requests(.geoapify).count, 1)

        // An assertion for a new token; the same assertion again is refused, and so is input that is not App Attest's.
        let challenge = try challenge(pier)
        let assertion: [String: String] = [
            "keyId": Data(device.keyID).base64EncodedString(), "challenge": Data(challenge).base64EncodedString(),
            "assertion": Data(try device.assertion(clientData: challenge)).base64EncodedString(),
        ]
        let exchanged = try post(pier, "/v1/app-attest/token", assertion)
        XCTAssertEqual(exchanged.status, 200)
        let second = try XCTUnwrap(exchanged.json["token"] as? String)
        XCTAssertEqual(try places(pier, 1, token: second).status, 200)
        let replayed = try post(pier, "/v1/app-attest/token", assertion)
        XCTAssertEqual(replayed.status, 401)
        XCTAssertEqual(replayed.json["error"] as? String, "the challenge was used already")
        XCTAssertEqual(try post(pier, "/v1/app-attest/token", ["keyId": "AAAA"]).status, 400)
        var broken = assertion
        broken["challenge"] = Data(try self.challenge(pier)).base64EncodedString()
        broken["assertion"] = Data([0xA0]).base64EncodedString()
        let undecodable = try post(pier, "/v1/app-attest/token", broken)
        XCTAssertEqual(undecodable.status, 401, "a proof that does not even decode fails its check")
        XCTAssertEqual(undecodable.json["error"] as? String, "malformed: the assertion has no signature or authenticatorData")
        XCTAssertEqual(try places(pier, 2, token: String(token.reversed())).status, 401, "a forged token")

        // Revoked by the operator: the running server refuses the device's tokens.
        let revoke = try command(["revoke", Data(device.keyID).base64EncodedString()])
        XCTAssertEqual(revoke.status, 0, revoke.output)
        try assertRefusedOnceRevoked(pier, token: second)

        // /health shows the state: the mode, the environment, how many apps, the test root, the device revoked.
        let health = try RawClient.request(port: pier.port, "/health")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])
        let state = try XCTUnwrap(report["app_attest"] as? [String: Any], health.bodyText)
        XCTAssertEqual(state["mode"] as? String, "require")
        XCTAssertEqual(state["environment"] as? String, "development")
        XCTAssertEqual(state["apps"] as? Int, 2)
        XCTAssertEqual(state["test_root"] as? Bool, true)
        XCTAssertEqual(state["revoked_devices"] as? Int, 1)
        XCTAssertFalse(health.bodyText.contains(app), "never the app's id")

        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_app_attest_attestations_total{result="accepted"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_app_attest_assertions_total{result="accepted"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_app_attest_assertions_total{result="challenge"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_app_attest_assertions_total{result="malformed"} 2"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_app_attest_tokens_issued_total 2"#), metrics)
        XCTAssertTrue(metrics.contains("pier_app_attest_spending_refused_total 3"), metrics)
        XCTAssertEqual(pier.stop(), 0)
        let log = pier.standardOutput()
        XCTAssertTrue(log.contains("App Attest trusts a TEST root"), "the test root is logged loudly")
        for text in [log, metrics, health.bodyText] {
            XCTAssertFalse(text.contains(secret), "the secret is never shown")
            XCTAssertFalse(text.contains(token), "tokens are never shown")
        }
    }

    func testPreferBudgetsDevicesOnTheirOwnAndTokenlessClientsInOnePool() throws {
        let pier = try startAttesting("prefer")
        // 200 credits a day: an address 10, the anonymous pool 20 (a tenth).
        var answered = 0
        for index in 0..<30 where try places(pier, index, from: "198.51.\(index / 10).7").status == 200 { answered += 1 }
        XCTAssertEqual(answered, 20, "three addresses without a token share 20")
        let pooled = try places(pier, 40, from: "192.0.2.1")
        XCTAssertEqual(pooled.status, 429)
        XCTAssertTrue(pooled.bodyText.contains("clients without an App Attest token have used their pool of Geoapify's daily quota"), pooled.bodyText)
        // A device behind the same spent address spends its own share.
        let token = try register(TestDevice(app: app), on: pier)
        var statuses: [Int] = []
        for index in 50..<61 { statuses.append(try places(pier, index, from: "198.51.2.7", token: token).status) }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 10) + [429], "a device's share: 5 % of 200")
        XCTAssertTrue(try places(pier, 70, from: "198.51.2.7", token: token).bodyText.contains("this device has used its share"))
        XCTAssertEqual(pier.stop(), 0)
    }

    func testACrossSignedCertificateSetIsRefusedBeforeAnySignatureAndKeyMintingIsBounded() throws {
        let pier = try startAttesting("require", ["PIER_APP_ATTEST_REGISTRATIONS_PER_DAY": "1"])
        // Eight keys cross-signed under the intermediate's name (64 certificates, about 25 KB): what kept a core busy for
        // eleven minutes when path building searched them. Refused by the chain's shape, before any signature.
        let crossSigned = try TestAttestationAuthority.crossSigned(keys: 8)
        let device = TestDevice(app: app)
        let started = Date()
        let refused = try attest(device, on: pier) { [$0[0]] + crossSigned }
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(
            refused.json["error"] as? String,
            "the certificate chain is not Apple's shape: 65 certificates, not 2 (the credential certificate and Apple's intermediate)")
        let twoOfThem = try attest(device, on: pier) { [$0[0], crossSigned[0]] }
        XCTAssertEqual(twoOfThem.json["error"] as? String, "the certificate chain is not Apple's shape: the intermediate issued itself")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "no search (the unbounded one took 682 s)")

        // One new device a day from this network: the second is refused until the next UTC day.
        _ = try register(device, on: pier)
        let second = try attest(TestDevice(app: app), on: pier)
        XCTAssertEqual(second.status, 429)
        XCTAssertEqual(
            second.json["error"] as? String, "this network has registered its new devices for today (PIER_APP_ATTEST_REGISTRATIONS_PER_DAY)")
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_app_attest_attestations_total{result="chain_shape"} 2"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_app_attest_verifications_refused_total{share="registrations"} 1"#), metrics)
        XCTAssertEqual(pier.stop(), 0)
    }

    /// `pier app-attest …` against the test's database.
    func command(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try ChildProcess.run(PierProcess.binary.path, ["app-attest"] + arguments, environment: [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory, "LOG_LEVEL": "error",
        ])
    }

    /// Asks places with `token` (a new point each time, so each would spend) until the running server has read the
    /// revocation through the change feed, and asserts that it refuses the token.
    func assertRefusedOnceRevoked(_ pier: PierProcess, token: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var answer = try places(pier, 100, token: token)
        let deadline = Date().addingTimeInterval(10)
        while answer.status == 200, Date() < deadline {
            usleep(50_000)
            answer = try places(pier, 101 + Int.random(in: 0..<1000), token: token)
        }
        XCTAssertEqual(answer.status, 401, file: file, line: line)
        XCTAssertTrue(answer.bodyText.contains("this device is revoked"), answer.bodyText, file: file, line: line)
    }

    func appAttestHealth(_ pier: PierProcess) throws -> (text: String, state: [String: Any]) {
        let health = try RawClient.request(port: pier.port, "/health")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])
        return (health.bodyText, try XCTUnwrap(report["app_attest"] as? [String: Any], health.bodyText))
    }

    func testADebugDeviceSpendsOnItsOwnShareUntilTheOperatorRevokesIt() throws {
        let created = try command(["debug-token", "create", "ci-simulator"])
        XCTAssertEqual(created.status, 0, created.output)
        let debugToken = try XCTUnwrap(created.output.split(separator: "\n").last.map(String.init))
        XCTAssertTrue(debugToken.hasPrefix("pier-debug-"), created.output)
        XCTAssertNotEqual(try command(["debug-token", "create", "ci-simulator"]).status, 0, "a name is used once")
        XCTAssertNotEqual(try command(["debug-token", "create", "no spaces"]).status, 0)

        let pier = try startAttesting("require", ["PIER_APP_ATTEST_DEBUG": "on"])
        XCTAssertEqual(try post(pier, "/v1/app-attest/debug", ["debugToken": "pier-debug-guessed"]).status, 401)
        XCTAssertEqual(try post(pier, "/v1/app-attest/debug", ["other": "x"]).status, 400)
        let exchanged = try post(pier, "/v1/app-attest/debug", ["debugToken": debugToken])
        XCTAssertEqual(exchanged.status, 200, "\(exchanged.json)")
        XCTAssertEqual(exchanged.json["expires_in"] as? Int, 3600)
        let token = try XCTUnwrap(exchanged.json["token"] as? String)
        XCTAssertEqual(try places(pier, 0, token: token).status, 200)
        XCTAssertEqual(upstream.requests(.geoapify).count, 1)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_app_attest_spending_requests_total{state="debug"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_app_attest_debug_exchanges_total{result="accepted"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_app_attest_debug_exchanges_total{result="refused"} 1"#), metrics)
        let (healthText, state) = try appAttestHealth(pier)
        XCTAssertEqual(state["debug"] as? Bool, true)
        XCTAssertEqual(state["debug_devices"] as? Int, 1)
        let hour = try XCTUnwrap(state["last_hour"] as? [String: Any])
        XCTAssertEqual(hour["spending_requests"] as? Int, 1)
        XCTAssertEqual(hour["verified_share"] as? Double, 1)

        let revoked = try command(["debug-token", "revoke", "ci-simulator"])
        XCTAssertEqual(revoked.status, 0, revoked.output)
        try assertRefusedOnceRevoked(pier, token: token)
        XCTAssertEqual(try post(pier, "/v1/app-attest/debug", ["debugToken": debugToken]).status, 401)
        let listed = try command(["debug-token", "list"])
        XCTAssertTrue(listed.output.contains("ci-simulator\t") && listed.output.contains("\trevoked "), listed.output)
        XCTAssertEqual(pier.stop(), 0)
        for text in [pier.standardOutput(), metrics, healthText, listed.output] {
            XCTAssertFalse(text.contains(debugToken), "the debug token is never shown")
            XCTAssertFalse(text.contains(token), "tokens are never shown")
        }
    }

    func testRegisteringForPushesSpendsLikeAnyRequestAndAnAttestedDeviceCountsOnItsOwn() throws {
        let created = try command(["debug-token", "create", "ci-pushes"])
        let debugToken = try XCTUnwrap(created.output.split(separator: "\n").last.map(String.init))
        // Without a device's proof not one registration a day: only attested devices register.
        let pier = try startAttesting("require", try apnsStandIn().1.merging(["PIER_APP_ATTEST_DEBUG": "on", "PIER_PUSH_REGISTRATIONS_PER_DAY": "0"]) { $1 })
        func register(token: String?) throws -> RawResponse {
            var headers = [("Content-Type", "application/json")]
            if let token { headers.append(("X-Pier-App-Token", token)) }
            let body = #"{"token":"\#(String(repeating: "ab", count: 32))","environment":"development","places":[{"lat":60.2,"lon":24.96}]}"#
            return try RawClient(port: pier.port).request("POST", "/v1/devices", headers: headers, body: Array(body.utf8))
        }
        let tokenless = try register(token: nil)
        XCTAssertEqual(tokenless.status, 401, tokenless.bodyText)
        XCTAssertEqual(tokenless.header("WWW-Authenticate"), "Pier-App-Token")
        let token = try XCTUnwrap(try post(pier, "/v1/app-attest/debug", ["debugToken": debugToken]).json["token"] as? String)
        let registered = try register(token: token)
        XCTAssertEqual(registered.status, 201, registered.bodyText)
        let counted = try database.connection().query("SELECT count(*)::int AS n FROM daily_counts WHERE scope = 'push-registrations'")
        XCTAssertEqual(try counted[0].decode(Int.self, "n"), 0, "an attested device is not counted against its network's day")
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_push_registrations_refused_total{reason="credential"} 1"#), metrics)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testACruiseImportIsAttestedDevicesOnlyUnderRequire() throws {
        let created = try command(["debug-token", "create", "ci-imports"])
        let debugToken = try XCTUnwrap(created.output.split(separator: "\n").last.map(String.init))
        let pier = try startAttesting("require", ["PIER_APP_ATTEST_DEBUG": "on", "PIER_GEMINI_API_KEY": "double-gemini-key", "PIER_GEMINI_CLIENT_SHARE": "1"])
        func importing(token: String?) throws -> RawResponse {
            var headers = [("Content-Type", "application/json")]
            if let token { headers.append(("X-Pier-App-Token", token)) }
            return try RawClient(port: pier.port).request("POST", "/v1/cruise-import", headers: headers, body: Array(#"{"text":"Kreuzfahrt ab Kiel"}"#.utf8))
        }
        let tokenless = try importing(token: nil)
        XCTAssertEqual(tokenless.status, 401, tokenless.bodyText)
        XCTAssertEqual(tokenless.header("WWW-Authenticate"), "Pier-App-Token")
        XCTAssertEqual(upstream.requests(.gemini).count, 0, "refused before any call")
        let token = try XCTUnwrap(try post(pier, "/v1/app-attest/debug", ["debugToken": debugToken]).json["token"] as? String)
        let attested = try importing(token: token)
        XCTAssertEqual(attested.status, 200, attested.bodyText)
        XCTAssertEqual(upstream.requests(.gemini).count, 1)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testMonitorCountsWhatRequireWouldRefuseAndRefusesNothing() throws {
        let pier = try startAttesting("monitor")
        XCTAssertEqual(try places(pier, 0).status, 200)
        XCTAssertEqual(try places(pier, 1, token: String(repeating: "A", count: 99)).status, 200, "a forged token: counted, not refused")
        let token = try register(TestDevice(app: app), on: pier)
        XCTAssertEqual(try places(pier, 2, token: token).status, 200)
        XCTAssertEqual(try places(pier, 3, token: token).status, 200)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        for (state, count) in [("verified", 2), ("missing", 1), ("forged", 1), ("expired", 0), ("revoked", 0), ("debug", 0)] {
            XCTAssertTrue(metrics.contains(#"pier_app_attest_spending_requests_total{state="\#(state)"} \#(count)"#), "\(state) \(metrics)")
        }
        XCTAssertTrue(metrics.contains("pier_app_attest_spending_refused_total 0"), metrics)
        let (_, state) = try appAttestHealth(pier)
        XCTAssertEqual(state["mode"] as? String, "monitor")
        XCTAssertEqual(state["debug"] as? Bool, false)
        let hour = try XCTUnwrap(state["last_hour"] as? [String: Any])
        XCTAssertEqual(hour["spending_requests"] as? Int, 4)
        XCTAssertEqual(hour["verified_share"] as? Double, 0.5)
        let debug = try post(pier, "/v1/app-attest/debug", ["debugToken": "pier-debug-x"])
        XCTAssertEqual(debug.status, 403)
        XCTAssertEqual(debug.json["error"] as? String, "debug devices are off on this server (PIER_APP_ATTEST_DEBUG)")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testTheTestRootIsRefusedUnlessAllowed() throws {
        let result = try ChildProcess.run(PierProcess.binary.path, ["routes"], environment: [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory,
            "PIER_APP_ATTEST_TEST_ROOT_FILE": try file("root.pem", try authority.rootPEM),
        ])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("PIER_APP_ATTEST_ALLOW_TEST_ROOT=yes"), result.output)
        let noSecret = try ChildProcess.run(PierProcess.binary.path, ["routes"], environment: [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory, "PIER_APP_ATTEST": "require",
            "PIER_APP_ATTEST_APPS": app,
        ])
        XCTAssertNotEqual(noSecret.status, 0)
        XCTAssertTrue(noSecret.output.contains("PIER_APP_ATTEST_SECRET"), noSecret.output)
    }

    func testTheOperatorsVerifierReplaysARealDevicesRecording() throws {
        let text = String(decoding: try Fixtures.bytes("appattest/veehaitch", "ios-14.4.yaml"), as: UTF8.self)
        func field(_ name: String, in document: Int) throws -> String {
            let part = text.components(separatedBy: "\n---")[document]
            let line = try XCTUnwrap(part.split(separator: "\n").first { $0.hasPrefix(name + ":") })
            return line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        }
        let input = try JSONSerialization.data(withJSONObject: [
            "keyId": try field("keyIdBase64", in: 0), "attestation": try field("attestationBase64", in: 0), "clientData": try field("clientDataBase64", in: 0),
        ])
        let app = "\(try field("teamIdentifier", in: 0)).\(try field("bundleIdentifier", in: 0))"
        let arguments = ["app-attest", "verify-attestation", "--app", app, "--environment", "development"]
        let replayed = try ChildProcess.run("/bin/sh", ["-c", "\"$0\" \"$@\" < \"\(try file("attestation.json", String(decoding: input, as: UTF8.self)))\"",
            PierProcess.binary.path] + arguments + ["--at", try field("timestamp", in: 0)])
        XCTAssertEqual(replayed.status, 0, replayed.output)
        let verified = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(replayed.output.utf8)) as? [String: Any])
        XCTAssertEqual(verified["ok"] as? Bool, true)
        XCTAssertEqual(verified["counter"] as? Int, 0)
        let pem = try XCTUnwrap(verified["publicKey"] as? String)
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let today = try ChildProcess.run("/bin/sh", ["-c", "\"$0\" \"$@\" < \"\(scratch.appendingPathComponent("attestation.json").path)\"", PierProcess.binary.path] + arguments)
        XCTAssertEqual(today.status, 1)
        XCTAssertTrue(today.output.contains(#""ok":false"#) && today.output.contains("certificate chain"), today.output)

        let assertion = try JSONSerialization.data(withJSONObject: [
            "assertion": try field("assertionBase64", in: 1), "clientData": try field("clientDataBase64", in: 1)])
        let checked = try ChildProcess.run("/bin/sh", ["-c", "\"$0\" \"$@\" < \"\(try file("assertion.json", String(decoding: assertion, as: UTF8.self)))\"",
            PierProcess.binary.path, "app-attest", "verify-assertion", "--app", app, "--public-key-file", try file("key.pem", pem), "--previous-counter", "0"])
        XCTAssertEqual(checked.status, 0, checked.output)
        XCTAssertTrue(checked.output.contains(#""ok":true"#), checked.output)
        let again = try ChildProcess.run("/bin/sh", ["-c", "\"$0\" \"$@\" < \"\(scratch.appendingPathComponent("assertion.json").path)\"",
            PierProcess.binary.path, "app-attest", "verify-assertion", "--app", app, "--public-key-file", scratch.appendingPathComponent("key.pem").path,
            "--previous-counter", try field("counter", in: 1)])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.output.contains("is not greater than"), again.output)
    }
}
