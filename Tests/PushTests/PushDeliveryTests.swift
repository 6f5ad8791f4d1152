import APNs
import APNsFormat
import Crypto
import DatabaseTesting
import Foundation
import Metrics
import Postgres
@testable import Push
import UpstreamTesting
import XCTest

/// The outbox in a real PostgreSQL and APNs played by the stand-in: once-only keys, leases, retries, dead tokens, two
/// deliveries sharing one outbox.
final class PushDeliveryTests: ServiceTestCase {
    private var standIn: APNsStandIn!
    private var client: APNsClient!
    private var outbox: PushOutbox!
    private let key = P256.Signing.PrivateKey()

    override func setUp() async throws {
        try await super.setUp()
        standIn = try APNsStandIn(keyID: "KEY1234567", teamID: "TEAM123456", topic: "fi.example.weather", publicKeyPEM: key.publicKey.pemRepresentation)
        client = APNsClient(
            configuration: .init(
                topic: "fi.example.weather", origins: [.production: standIn.origin, .development: standIn.origin],
                transport: .init(timeout: .seconds(10), caFile: standIn.caFile)),
            token: ProviderToken(key: key, keyID: "KEY1234567", teamID: "TEAM123456"))
        outbox = PushOutbox(pool: pool)
    }

    override func tearDown() {
        client?.stop()
        standIn?.stop()
        super.tearDown()
    }

    private func token(_ n: Int) -> String { String(format: "%064x", n) }

    private func devices(_ count: Int) async throws -> [String] {
        try await pool.transaction { connection in
            try (0..<count).map { try PushDevices.register(token: String(format: "%064x", $0), app: "warnings", environment: .production, on: connection) }
        }
    }

    private func messages(_ devices: [String], key: String = "test:1", expiresIn: Int64 = 3600) -> [PushMessage] {
        devices.map {
            PushMessage(deviceID: $0, key: key, payload: #"{"aps":{"alert":"hello"}}"#, expiresAt: Int64(Date().timeIntervalSince1970) + expiresIn)
        }
    }

    private func delivery(_ settings: PushDelivery.Settings = .init()) -> PushDelivery {
        PushDelivery(outbox: outbox, sender: client, settings: settings, metrics: PushMetrics(registry: MetricsRegistry()))
    }

    private func count(_ sql: String) async throws -> Int {
        try await pool.query(sql)[0].decode(Int.self, "n")
    }

    /// Two apps: one token in both is two devices (neither takes the other's), and each app's pushes go with its own
    /// topic (the stand-in accepts only the warnings app's, and records what each push named).
    func testEachAppsTokensAndTopicAreItsOwn() async throws {
        let token = String(format: "%064x", 7)
        let (warnings, nextwave) = try await pool.transaction { connection in
            (try PushDevices.register(token: token, app: "warnings", environment: .production, on: connection),
             try PushDevices.register(token: token, app: "nextwave", environment: .production, on: connection))
        }
        XCTAssertNotEqual(warnings, nextwave)
        let again = try await pool.transaction { try PushDevices.register(token: token, app: "nextwave", environment: .production, on: $0) }
        let left = try await pool.query("SELECT app FROM push_devices ORDER BY app").map { try $0.decode(String.self, "app") }
        XCTAssertEqual(left, ["nextwave", "warnings"], "within one app the latest registration wins; the other app's stays")
        let other = APNsClient(
            configuration: .init(topic: "ch.nextwave.app", origins: client.configuration.origins, transport: client.configuration.transport), token: client.token)
        defer { other.stop() }
        let senders = PushSenders(client)
        senders.set(other, for: "nextwave")
        try await outbox.enqueue(messages([warnings, again]))
        let round = try await PushDelivery(outbox: outbox, senders: senders, settings: .init(), metrics: PushMetrics(registry: MetricsRegistry())).deliverDue()
        XCTAssertEqual(round.claimed, 2)
        let topics = try standIn.received().map { $0.topic ?? "" }.sorted()
        XCTAssertEqual(topics, ["ch.nextwave.app", "fi.example.weather"], "each app's push with its own topic")
        XCTAssertEqual(round.recorded.delivered, 1, "the stand-in knows only the warnings app's topic")
    }

    func testAKeyIsEnqueuedOnceAndDeliveredOnce() async throws {
        let ids = try await devices(3)
        let added = try await outbox.enqueue(messages(ids))
        XCTAssertEqual(added, 3)
        let repeated = try await outbox.enqueue(messages(ids))
        XCTAssertEqual(repeated, 0, "the same key for the same device is never enqueued twice")
        let round = try await delivery().deliverDue()
        XCTAssertEqual(round.claimed, 3)
        XCTAssertEqual(round.recorded.delivered, 3)
        XCTAssertEqual(try standIn.received().count, 3)
        let after = try await delivery().deliverDue()
        XCTAssertEqual(after.claimed, 0)
        let again = try await outbox.enqueue(messages(ids))
        XCTAssertEqual(again, 0, "not after delivery either")
    }

    /// A payload is stored once however many devices get it (a warning's fan-out: three payloads for 100,000 rows),
    /// through either way of enqueueing, delivered as it was given, and pruned once nothing names it.
    func testEachPayloadIsStoredOnceAndPrunedWhenNothingNamesIt() async throws {
        let ids = try await devices(3)
        let expires = Int64(Date().timeIntervalSince1970) + 3600
        let (a, b, c) = (#"{"aps":{"alert":"a \"quoted\" \\ one"}}"#, #"{"aps":{"alert":"b"}}"#, #"{"aps":{"alert":"c"}}"#)
        try await outbox.enqueue([
            PushMessage(deviceID: ids[0], key: "test:1", payload: a, expiresAt: expires),
            PushMessage(deviceID: ids[1], key: "test:1", payload: a, expiresAt: expires),
            PushMessage(deviceID: ids[2], key: "test:1", payload: b, expiresAt: expires),
        ])
        let stored = try await count("SELECT count(*)::int AS n FROM push_payloads")
        XCTAssertEqual(stored, 2)
        // A feature's fan-out in its own query: every device, payload a again.
        let fanned = try await pool.transaction { connection in
            try PushOutbox.enqueue(
                payloads: [b, a], selecting: "SELECT id, 'fan:1', 2, NULL::text, to_timestamp($1), 10 FROM push_devices", [expires], on: connection)
        }
        XCTAssertEqual(fanned, 3)
        let (payloads, pushes) = (try await count("SELECT count(*)::int AS n FROM push_payloads"), try await count("SELECT count(*)::int AS n FROM push_outbox"))
        XCTAssertEqual(payloads, 2, "a is stored once for five pushes")
        XCTAssertEqual(pushes, 6)

        let round = try await delivery().deliverDue()
        XCTAssertEqual(round.recorded.delivered, 6)
        XCTAssertEqual(try standIn.received().map(\.payload).sorted(), [a, a, a, a, a, b].sorted(), "each sent as it was given")

        try await outbox.enqueue([PushMessage(deviceID: ids[0], key: "test:2", payload: c, expiresAt: expires)])
        let pruned = try await outbox.prune(deviceRetention: .seconds(86_400), keep: .zero)
        XCTAssertEqual(pruned.pushes, 6)
        let left = try await pool.query("SELECT body FROM push_payloads").map { try $0.decode(String.self, "body") }
        XCTAssertEqual(left, [c], "delivered pushes' payloads go with them; a pending push's stays")
    }

    /// Migration 0024 moved the payloads out of the outbox's rows: pushes pending before the upgrade go out after it
    /// with the payloads they were enqueued with.
    func testPushesPendingBeforeThePayloadsMovedAreSentAsTheyWere() async throws {
        let previous = try TestDatabase.create()
        defer { previous.drop() }
        let old = try await previous.migratedPool(through: 23)
        // Registered as the engine did then (before migration 0029, a device had no app).
        let ids = try await old.transaction { connection in
            try (0..<3).map { n in
                let id = UUID().uuidString.lowercased()
                try connection.execute("INSERT INTO push_devices (id, token, environment) VALUES ($1::uuid, $2, 'production')", [id, String(format: "%064x", n)])
                return id
            }
        }
        let (a, b) = (#"{"aps":{"alert":"before"}}"#, #"{"aps":{"alert":"other"}}"#)
        for (id, payload) in zip(ids, [a, a, b]) {
            _ = try await old.execute(
                "INSERT INTO push_outbox (device_id, push_key, payload, expires_at) VALUES ($1::uuid, 'old:1', $2, now() + interval '1 hour')", [id, payload])
        }
        let upgraded = try await previous.migratedPool()
        let moved = try await upgraded.query("SELECT count(*)::int AS n FROM push_payloads")[0].decode(Int.self, "n")
        XCTAssertEqual(moved, 2)
        let round = try await PushDelivery(
            outbox: PushOutbox(pool: upgraded), sender: client, settings: .init(), metrics: PushMetrics(registry: MetricsRegistry())
        ).deliverDue()
        XCTAssertEqual(round.recorded.delivered, 3)
        XCTAssertEqual(try standIn.received().map(\.payload).sorted(), [a, a, b].sorted())
    }

    func testDeadTokensAreDeletedRetriesWaitAndRefusalsAreDone() async throws {
        let ids = try await devices(5)
        try standIn.script(token(0), [["status": 410, "reason": "Unregistered", "timestamp": Int64(Date().timeIntervalSince1970 + 60) * 1000]])
        try standIn.script(token(1), [["status": 400, "reason": "BadDeviceToken"]])
        try standIn.script(token(2), [["status": 503, "reason": "ServiceUnavailable"]])
        try standIn.script(token(3), [["status": 400, "reason": "BadCollapseId"]])
        // A 410 older than the device's last registration leaves it alone (it registered again since).
        try standIn.script(token(4), [["status": 410, "reason": "Unregistered", "timestamp": 1_000]])
        try await outbox.enqueue(messages(ids))
        let round = try await delivery().deliverDue()
        XCTAssertEqual(round.recorded, PushOutbox.Recorded(delivered: 0, retried: 1, failed: 0, rejected: 4, devicesRemoved: 2))
        let left = try await pool.query("SELECT token FROM push_devices ORDER BY token").map { try $0.decode(String.self, "token") }
        XCTAssertEqual(left, [token(2), token(3), token(4)])
        let retry = try await pool.query("SELECT state, attempts, due_at > now() + interval '2 seconds' AS later, leased_until IS NULL AS free FROM push_outbox WHERE device_id = $1::uuid", [ids[2]])[0]
        XCTAssertEqual(try retry.decode(String.self, "state"), "pending")
        XCTAssertEqual(try retry.decode(Int.self, "attempts"), 1)
        XCTAssertTrue(try retry.decode(Bool.self, "later"), "retried after a backoff, not at once")
        XCTAssertTrue(try retry.decode(Bool.self, "free"))
        let rejected = try await count("SELECT count(*)::int AS n FROM push_outbox WHERE state = 'rejected'")
        XCTAssertEqual(rejected, 2)
        let nothingDue = try await delivery().deliverDue()
        XCTAssertEqual(nothingDue.claimed, 0)
    }

    func testALeaseKeepsOthersAwayUntilItEnds() async throws {
        let ids = try await devices(4)
        try await outbox.enqueue(messages(ids))
        // A replica claims and dies before recording anything.
        let dead = try await outbox.claim(limit: 10, lease: .seconds(2))
        XCTAssertEqual(dead.count, 4)
        let during = try await delivery().deliverDue()
        XCTAssertEqual(during.claimed, 0, "nothing is sent twice within the lease")
        try await Task.sleep(for: .milliseconds(2200))
        let after = try await delivery().deliverDue()
        XCTAssertEqual(after.claimed, 4, "after it, another replica delivers what the dead one held")
        XCTAssertEqual(Set(try standIn.received().map(\.token)).count, 4)
    }

    func testTwoDeliveriesShareOneOutboxWithoutSendingAnythingTwice() async throws {
        let ids = try await devices(300)
        try await outbox.enqueue(messages(ids))
        var settings = PushDelivery.Settings()
        settings.batch = 50
        let first = delivery(settings)
        let second = delivery(settings)
        async let a = Self.drain(first)
        async let b = Self.drain(second)
        let (sentByA, sentByB) = try await (a, b)
        XCTAssertEqual(sentByA + sentByB, 300)
        let tokens = try standIn.received().map(\.token)
        XCTAssertEqual(tokens.count, 300)
        XCTAssertEqual(Set(tokens).count, 300)
    }

    /// Rounds until one claims nothing; how many it claimed in all.
    private static func drain(_ delivery: PushDelivery) async throws -> Int {
        var total = 0
        while true {
            let claimed = try await delivery.deliverDue().claimed
            if claimed == 0 { return total }
            total += claimed
        }
    }

    func testExpiredPushesAreNeverSentAndRetriesEndInFailure() async throws {
        let ids = try await devices(2)
        try await outbox.enqueue(messages([ids[0]], expiresIn: -10))
        try await outbox.enqueue(messages([ids[1]], key: "test:2"))
        try standIn.script(token(1), [["status": 500, "reason": "InternalServerError"]])
        var settings = PushDelivery.Settings()
        settings.maximumAttempts = 1
        let round = try await delivery(settings).deliverDue()
        XCTAssertEqual(round.claimed, 1, "the expired one is not claimed")
        XCTAssertEqual(round.recorded.failed, 1)
        let states = try await pool.query("SELECT state FROM push_outbox ORDER BY push_key").map { try $0.decode(String.self, "state") }
        XCTAssertEqual(states, ["expired", "failed"])
        XCTAssertEqual(try standIn.received().map(\.token), [token(1)])
    }

    func testBackoffGrowsAndIsJittered() {
        let backoff = RetryBackoff(base: .seconds(5), maximum: .seconds(900))
        XCTAssertEqual(backoff.delay(afterAttempt: 1, random: 0), 2.5)
        XCTAssertEqual(backoff.delay(afterAttempt: 1, random: 1), 5)
        XCTAssertEqual(backoff.delay(afterAttempt: 3, random: 1), 20)
        XCTAssertEqual(backoff.delay(afterAttempt: 30, random: 1), 900)
    }
}
