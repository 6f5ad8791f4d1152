import APNsFormat
import Crypto
import Foundation
import UpstreamTesting
import XCTest

@testable import APNs

/// The APNs client against the stand-in (`Sources/APNs/Testing/apns_standin.py`): real TLS, real HTTP/2, the provider
/// token checked with the key's public half.
final class APNsClientTests: XCTestCase {
    private let keyID = "ABC123DEFG"
    private let teamID = "DEF123GHIJ"
    private let topic = "fi.example.weather"
    private let deviceToken = String(repeating: "ab", count: 32)
    private var standIn: APNsStandIn?
    private var key = P256.Signing.PrivateKey()

    override func setUpWithError() throws {
        key = P256.Signing.PrivateKey()
        standIn = try APNsStandIn(keyID: keyID, teamID: teamID, topic: topic, publicKeyPEM: key.publicKey.pemRepresentation)
    }

    override func tearDown() {
        standIn?.stop()
        standIn = nil
    }

    private func client(key: P256.Signing.PrivateKey? = nil, topic: String? = nil) throws -> APNsClient {
        let standIn = try XCTUnwrap(standIn)
        let origins = Dictionary(uniqueKeysWithValues: APNsEnvironment.allCases.map { ($0, standIn.origin) })
        return APNsClient(
            configuration: .init(topic: topic ?? self.topic, origins: origins, transport: .init(timeout: .seconds(10), caFile: standIn.caFile)),
            token: ProviderToken(key: key ?? self.key, keyID: keyID, teamID: teamID))
    }

    private func notification(token: String? = nil, payload: String = #"{"aps":{"alert":{"title":"Tuulivaroitus","body":"Kova tuuli"}}}"#) -> APNsNotification {
        APNsNotification(
            deviceToken: token ?? deviceToken, environment: .production, payload: Array(payload.utf8), collapseID: "warning-1",
            expiration: 1_900_000_000)
    }

    func testAPushArrivesWithItsHeadersAndPayload() async throws {
        let client = try client()
        defer { client.stop() }
        let result = await client.send(notification())
        guard case .delivered(let apnsID) = result else { return XCTFail("\(result)") }
        XCTAssertFalse(apnsID.isEmpty)
        let pushes = try XCTUnwrap(standIn).received()
        XCTAssertEqual(pushes.count, 1)
        let push = try XCTUnwrap(pushes.first)
        XCTAssertEqual(push.token, deviceToken)
        XCTAssertEqual(push.topic, topic)
        XCTAssertEqual(push.push_type, "alert")
        XCTAssertEqual(push.priority, "10")
        XCTAssertEqual(push.expiration, "1900000000")
        XCTAssertEqual(push.collapse_id, "warning-1")
        XCTAssertEqual(push.payload, #"{"aps":{"alert":{"title":"Tuulivaroitus","body":"Kova tuuli"}}}"#)
        XCTAssertEqual(push.status, 200)
    }

    /// One connection, one provider token, and streams beyond the first once APNs raised the limit after a success.
    func testManyPushesShareOneConnectionAndOneToken() async throws {
        let client = try client()
        defer { client.stop() }
        let standIn = try XCTUnwrap(standIn)
        try standIn.delay(milliseconds: 50)
        let first = await client.send(notification())
        XCTAssertEqual(first.outcome, "delivered")
        let notifications = (0..<200).map { notification(token: String(format: "%064x", $0)) }
        let results = await withTaskGroup(of: APNsResult.self) { group in
            for notification in notifications {
                group.addTask { await client.send(notification) }
            }
            return await group.reduce(into: [APNsResult]()) { $0.append($1) }
        }
        XCTAssertEqual(results.filter { $0.outcome == "delivered" }.count, 200)
        let stats = try standIn.stats()
        XCTAssertEqual(stats.connections, 1, "one connection for one environment")
        XCTAssertEqual(stats.tokens_seen, 1, "one provider token reused")
        XCTAssertEqual(stats.pushes, 201)
        XCTAssertGreaterThan(stats.max_streams_seen, 10, "the pushes were multiplexed once APNs allowed it")
        XCTAssertEqual(client.token.signed, 1)
    }

    /// A batch (the delivery's round) goes at once and is answered in its own order, whatever order the answers
    /// arrive in; a token that is no token is answered without going on the wire.
    func testABatchIsAnsweredInItsOwnOrder() async throws {
        let client = try client()
        defer { client.stop() }
        let standIn = try XCTUnwrap(standIn)
        let tokens = (0..<300).map { String(format: "%064x", $0) }
        for (index, token) in tokens.enumerated() where index % 7 == 3 {
            try standIn.script(token, [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]])
        }
        var batch = tokens.map { notification(token: $0) }
        batch.insert(notification(token: "not-a-token"), at: 150)
        let results = await client.send(batch)
        XCTAssertEqual(results.count, 301)
        for (index, result) in results.enumerated() {
            let original = index < 150 ? index : index - 1
            if index == 150 {
                XCTAssertEqual(result, .deviceGone(status: 400, reason: "BadDeviceToken", since: nil))
            } else if original % 7 == 3 {
                XCTAssertEqual(result, .deviceGone(status: 410, reason: "Unregistered", since: 1_700_000_000_000), "\(index)")
            } else {
                XCTAssertEqual(result.outcome, "delivered", "\(index): \(result)")
            }
        }
        let stats = try standIn.stats()
        XCTAssertEqual(stats.pushes, 300, "the token that is no token never went")
        XCTAssertEqual(stats.connections, 1)
        let none = await client.send([])
        XCTAssertEqual(none, [])
    }

    func testEveryAnswerIsSortedForTheDelivery() async throws {
        let client = try client()
        defer { client.stop() }
        let standIn = try XCTUnwrap(standIn)
        try standIn.script(deviceToken, [
            ["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000],
            ["status": 400, "reason": "BadDeviceToken"],
            ["status": 400, "reason": "DeviceTokenNotForTopic"],
            ["status": 429, "reason": "TooManyRequests"],
            ["status": 503, "reason": "ServiceUnavailable"],
            ["status": 500, "reason": "InternalServerError"],
            ["status": 400, "reason": "BadCollapseId"],
        ])
        var results: [APNsResult] = []
        for _ in 0..<7 { results.append(await client.send(notification())) }
        XCTAssertEqual(results, [
            .deviceGone(status: 410, reason: "Unregistered", since: 1_700_000_000_000),
            .deviceGone(status: 400, reason: "BadDeviceToken", since: nil),
            .deviceGone(status: 400, reason: "DeviceTokenNotForTopic", since: nil),
            .retry(status: 429, reason: "TooManyRequests"),
            .retry(status: 503, reason: "ServiceUnavailable"),
            .retry(status: 500, reason: "InternalServerError"),
            .rejected(status: 400, reason: "BadCollapseId"),
        ])
        let payload = "{\"aps\":{\"alert\":\"\(String(repeating: "x", count: 4100))\"}}"
        let tooLarge = await client.send(notification(payload: payload))
        XCTAssertEqual(tooLarge, .rejected(status: 413, reason: "PayloadTooLarge"))
    }

    func testTheStandInChecksWhatAppleChecks() async throws {
        let wrongKey = try client(key: P256.Signing.PrivateKey())
        defer { wrongKey.stop() }
        let signedByAnother = await wrongKey.send(notification())
        XCTAssertEqual(signedByAnother, .rejected(status: 403, reason: "InvalidProviderToken"))
        let wrongTopic = try client(topic: "com.example.other")
        defer { wrongTopic.stop() }
        let anotherTopic = await wrongTopic.send(notification())
        XCTAssertEqual(anotherTopic, .rejected(status: 400, reason: "BadTopic"))
        // Not hex: refused here, never put into a path.
        let client = try client()
        defer { client.stop() }
        let notHex = await client.send(notification(token: "../../admin"))
        XCTAssertEqual(notHex, .deviceGone(status: 400, reason: "BadDeviceToken", since: nil))
        XCTAssertEqual(try XCTUnwrap(standIn).received().filter { $0.token.contains("admin") }.count, 0)
    }

    func testNoAnswerIsARetry() async throws {
        let client = APNsClient(
            configuration: .init(topic: topic, origins: [.production: "https://127.0.0.1:9", .development: "https://127.0.0.1:9"], transport: .init(timeout: .seconds(5))),
            token: ProviderToken(key: key, keyID: keyID, teamID: teamID))
        defer { client.stop() }
        let result = await client.send(notification())
        XCTAssertEqual(result.outcome, "retry", "\(result)")
    }
}

/// The provider token's life: reused, refreshed between 30 and 50 minutes, never replaced younger than 20.
final class ProviderTokenTests: XCTestCase {
    func testATokenIsAVerifiableES256JWT() throws {
        let key = P256.Signing.PrivateKey()
        let token = ProviderToken(key: key, keyID: "KEY1234567", teamID: "TEAM123456").token(now: 1_800_000_000)
        let parts = token.split(separator: ".").map(String.init)
        XCTAssertEqual(parts.count, 3)
        func decoded(_ part: String) throws -> [UInt8] {
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            return Array(try XCTUnwrap(Data(base64Encoded: text)))
        }
        XCTAssertEqual(String(decoding: try decoded(parts[0]), as: UTF8.self), #"{"alg":"ES256","kid":"KEY1234567"}"#)
        XCTAssertEqual(String(decoding: try decoded(parts[1]), as: UTF8.self), #"{"iss":"TEAM123456","iat":1800000000}"#)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try decoded(parts[2]))
        XCTAssertTrue(key.publicKey.isValidSignature(signature, for: Array((parts[0] + "." + parts[1]).utf8)))
    }

    func testReusedUntilItsAgeThenRenewed() {
        let token = ProviderToken(key: P256.Signing.PrivateKey(), keyID: "K", teamID: "T")
        let start: Int64 = 1_800_000_000
        let first = token.token(now: start)
        XCTAssertEqual(token.token(now: start + 29 * 60), first, "younger than 30 minutes: the same")
        XCTAssertNotEqual(token.token(now: start + 50 * 60), first, "50 minutes or older: a new one")
        XCTAssertEqual(token.signed, 2)
    }

    func testARefusalRenewsOnlyATokenOfTwentyMinutes() {
        let token = ProviderToken(key: P256.Signing.PrivateKey(), keyID: "K", teamID: "T")
        let start: Int64 = 1_800_000_000
        let first = token.token(now: start)
        XCTAssertFalse(token.refused(first, now: start + 10 * 60), "a refresh this early earns 429 TooManyProviderTokenUpdates")
        XCTAssertEqual(token.token(now: start + 10 * 60), first)
        XCTAssertTrue(token.refused(first, now: start + 21 * 60))
        let second = token.token(now: start + 21 * 60)
        XCTAssertNotEqual(second, first)
        XCTAssertFalse(token.refused(first, now: start + 45 * 60), "a refusal of an older token does not renew the new one")
    }

    func testAKeyFileThatIsNoP8IsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-key-\(UUID().uuidString).p8").path
        try "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try ProviderToken(keyFile: path, keyID: "K", teamID: "T")) {
            XCTAssertEqual($0 as? ProviderToken.Failure, .unreadableKey(path: path))
        }
        let key = P256.Signing.PrivateKey()
        try key.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNoThrow(try ProviderToken(keyFile: path, keyID: "K", teamID: "T"))
    }
}
