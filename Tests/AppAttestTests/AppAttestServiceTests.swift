@testable import AppAttest
import AppAttestTesting
import Basics
import Crypto
import DatabaseTesting
import Foundation
import HTTPServer
import Limits
import Postgres
import Synchronization
import XCTest


/// Registrations and token exchanges against real PostgreSQL, with a test root: each refusal says why and stores
/// nothing; a challenge is spent once across replicas; the counter only moves forward; revoked devices are refused.
final class AppAttestServiceTests: ServiceTestCase {
    private let app = "ABCDE12345.org.example.pier"
    private let secret = String(repeating: "s", count: 40)
    private var authority: TestAttestationAuthority!

    override func setUp() async throws {
        try await super.setUp()
        authority = try TestAttestationAuthority()
    }

    private func service(
        _ mode: AppAttestMode = .require, secret: String? = nil, budget: BudgetSettings = .init(ratePerMinute: 60_000, burst: 1000, clientShare: 1),
        _ change: (inout AppAttestFeature.Settings) -> Void = { _ in }
    ) -> AppAttestService {
        var settings = AppAttestFeature.Settings()
        settings.mode = mode
        settings.apps = [app]
        settings.environments = [.development]
        settings.budget = budget
        change(&settings)
        return AppAttestService(settings: settings, secret: secret ?? self.secret, roots: [authority.root], store: AppAttestStore(pool: pool), metrics: nil)
    }

    private func rows(_ table: String) async throws -> Int {
        try await pool.query("SELECT count(*) AS n FROM \(table)").first?.decode(Int.self, "n") ?? -1
    }

    /// Registers `device` with a fresh challenge; its token.
    private func register(_ device: TestDevice, on service: AppAttestService) async throws -> String {
        let challenge = service.challenge()
        return try await service.register(
            keyID: device.keyID, attestation: try device.attestation(clientData: challenge, authority: authority), challenge: challenge, client: nil
        ).get()
    }

    func testADeviceRegistersOnceAndExchangesAssertionsForTokens() async throws {
        let service = service()
        var device = TestDevice(app: app)
        let token = try await register(device, on: service)
        XCTAssertEqual(try service.tokens.holder(of: Substring(token), now: Date()), .device(device.keyID))
        let stored = try await AppAttestStore(pool: pool).device(device.keyID)
        XCTAssertEqual(stored?.counter, 0)
        XCTAssertEqual(stored?.app, app)
        XCTAssertEqual(stored?.environment, "development")
        XCTAssertEqual(stored?.publicKey, Array(device.key.publicKey.x963Representation))

        // The same key again: App Attest attests a key once.
        let again = service.challenge()
        let second = try await service.register(
            keyID: device.keyID, attestation: try device.attestation(clientData: again, authority: authority), challenge: again, client: nil)
        XCTAssertEqual(second.failure, .alreadyRegistered)

        // Assertions: each over a fresh challenge, the counter moving up.
        for expected in 1...3 {
            let challenge = service.challenge()
            let assertion = try device.assertion(clientData: challenge)
            let fresh = try await service.token(keyID: device.keyID, assertion: assertion, challenge: challenge, client: nil).get()
            XCTAssertFalse(fresh.isEmpty)
            let counter = try await AppAttestStore(pool: pool).device(device.keyID)?.counter
            XCTAssertEqual(counter, UInt32(expected))
        }
        // The last assertion replayed: its challenge is spent.
        let challenge = service.challenge()
        let assertion = try device.assertion(clientData: challenge)
        _ = try await service.token(keyID: device.keyID, assertion: assertion, challenge: challenge, client: nil).get()
        let replayed = try await service.token(keyID: device.keyID, assertion: assertion, challenge: challenge, client: nil)
        XCTAssertEqual(replayed.failure, .challenge("was used already"))
        // A new assertion over the spent challenge.
        let reused = try await service.token(keyID: device.keyID, assertion: try device.assertion(clientData: challenge), challenge: challenge, client: nil)
        XCTAssertEqual(reused.failure, .challenge("was used already"))
        // An old counter over a new challenge.
        let other = service.challenge()
        let stale = try await service.token(keyID: device.keyID, assertion: try device.assertion(clientData: other, counter: 2), challenge: other, client: nil)
        XCTAssertEqual(stale.failure, .counter(2, expectedAbove: 4))
        let kept = try await AppAttestStore(pool: pool).device(device.keyID)?.counter
        XCTAssertEqual(kept, 4, "a refused assertion moves nothing")
    }

    func testEveryRefusalStoresNoDeviceAndEveryValidChallengeIsTriedOnce() async throws {
        let service = service()
        let device = TestDevice(app: app)
        // Another environment's key, another challenge than the one certified.
        let production = TestDevice(app: app, environment: .production)
        var challenge = service.challenge()
        var result = try await service.register(
            keyID: production.keyID, attestation: try production.attestation(clientData: challenge, authority: authority), challenge: challenge, client: nil)
        XCTAssertEqual(result.failure, .environment)
        challenge = service.challenge()
        let otherNonce = try device.attestation(clientData: Array("other".utf8), authority: authority)
        result = try await service.register(keyID: device.keyID, attestation: otherNonce, challenge: challenge, client: nil)
        XCTAssertEqual(result.failure, .nonce)
        // The failing attestation again with the same challenge: the challenge was spent by the first try.
        result = try await service.register(keyID: device.keyID, attestation: otherNonce, challenge: challenge, client: nil)
        XCTAssertEqual(result.failure, .challenge("was used already"))
        // A forged challenge, an expired one, another server's: refused for free, nothing spent.
        var forged = service.challenge()
        forged[0] ^= 1
        result = try await service.register(
            keyID: device.keyID, attestation: try device.attestation(clientData: forged, authority: authority), challenge: forged, client: nil)
        XCTAssertEqual(result.failure, .challenge("was not issued by this server"))
        let old = service.challenge(now: Date().addingTimeInterval(-301))
        result = try await service.register(
            keyID: device.keyID, attestation: try device.attestation(clientData: old, authority: authority), challenge: old, client: nil)
        XCTAssertEqual(result.failure, .challenge("has expired (a challenge holds 300 seconds)"))
        let elsewhere = self.service(secret: String(repeating: "t", count: 40)).challenge()
        result = try await service.register(
            keyID: device.keyID, attestation: try device.attestation(clientData: elsewhere, authority: authority), challenge: elsewhere, client: nil)
        XCTAssertEqual(result.failure, .challenge("was not issued by this server"))
        // An unknown key asks for a token.
        let token = try await service.token(keyID: device.keyID, assertion: [0xA0], challenge: service.challenge(), client: nil)
        XCTAssertEqual(token.failure, .unknownKey)
        let devices = try await rows("app_attest_devices")
        let spent = try await rows("app_attest_spent_challenges")
        XCTAssertEqual(devices, 0)
        XCTAssertEqual(spent, 0, "a failed proof writes no row: its challenge is spent in this replica's memory (the replay above was refused)")
    }

    func testAChallengeIsSpentOnceAcrossReplicas() async throws {
        // Two replicas (two services on one database, one secret): the same challenge used by two devices at once.
        let first = service(), second = service()
        let challenge = first.challenge()
        let devices = [TestDevice(app: app), TestDevice(app: app)]
        let attestations = try devices.map { try $0.attestation(clientData: challenge, authority: authority) }
        async let a = first.register(keyID: devices[0].keyID, attestation: attestations[0], challenge: challenge, client: nil)
        async let b = second.register(keyID: devices[1].keyID, attestation: attestations[1], challenge: challenge, client: nil)
        let results = try await [a, b]
        XCTAssertEqual(results.filter { (try? $0.get()) != nil }.count, 1, "one registration spends the challenge")
        XCTAssertEqual(results.compactMap(\.failure), [.challenge("was used already")])
        let devicesStored = try await rows("app_attest_devices")
        XCTAssertEqual(devicesStored, 1)
    }

    func testARevokedDeviceGetsNoTokenAndItsTokensCountForNothing() async throws {
        let service = service(.prefer)
        var device = TestDevice(app: app)
        let token = try await register(device, on: service)
        let credentials = AppAttestCredentials(service: service)
        let address = try XCTUnwrap(IPAddress("198.51.100.7"))
        func client(_ token: String?) -> Spender {
            var request = HTTPRequest(method: .get, target: "/v1/places", path: "/v1/places")
            if let token { request.headers.add("X-Pier-App-Token", token) }
            return credentials.spender(of: request, so: Spender(address))
        }
        XCTAssertEqual(client(token).groups, [ClientGroup(device: device.keyID)])
        XCTAssertNil(client(token).refusal)
        XCTAssertEqual(client(nil).groups, address.groups + [.anonymous], "prefer: the address and the anonymous pool")
        XCTAssertNil(client(nil).refusal)
        var forged = Array(token)
        forged[10] = forged[10] == "A" ? "B" : "A"
        XCTAssertEqual(client(String(forged)).refusal?.reason, "the X-Pier-App-Token is not one this server issued")
        XCTAssertEqual(client("short").refusal?.reason, "the X-Pier-App-Token is not one this server issued")
        let expired = service.tokens.issue(.device(device.keyID), now: Date().addingTimeInterval(-3601))
        XCTAssertEqual(client(expired).refusal?.reason, "the X-Pier-App-Token has expired (ask POST /v1/app-attest/token for another)")

        let revoked = try await AppAttestStore(pool: pool).revoke(device.keyID)
        XCTAssertTrue(revoked)
        try await service.load()
        XCTAssertEqual(client(token).refusal?.reason, "this device is revoked")
        let challenge = service.challenge()
        let refused = try await service.token(keyID: device.keyID, assertion: try device.assertion(clientData: challenge), challenge: challenge, client: nil)
        XCTAssertEqual(refused.failure, .revoked)

        // require: no token, no spending; off: tokens are not even read.
        let required = AppAttestCredentials(service: self.service(.require))
        let request = HTTPRequest(method: .get, target: "/", path: "/")
        XCTAssertEqual(
            required.spender(of: request, so: Spender(address)).refusal?.reason,
            "this server spends upstream calls only for attested app instances: send X-Pier-App-Token (POST /v1/app-attest/token)")
    }

    func testEachAddressAndNetworkHasAShareOfTheVerificationsAndOnlyValidChallengesCount() async throws {
        // A network's share: 2 at once (a fifth of a burst of 10).
        let service = service(budget: .init(ratePerMinute: 1, burst: 10, clientShare: 0.2))
        let address = try XCTUnwrap(IPAddress("203.0.113.9")), neighbour = try XCTUnwrap(IPAddress("203.0.113.10"))
        func unavailable(_ client: IPAddress, challenge: [UInt8]? = nil) async throws -> AppAttestService.Unavailable? {
            do {
                let result = try await service.token(keyID: Array(repeating: 1, count: 32), assertion: [0xA0], challenge: challenge ?? service.challenge(), client: client)
                XCTAssertEqual(result.failure, challenge == nil ? .unknownKey : .challenge("was not issued by this server"))
                return nil
            } catch {
                return error
            }
        }
        // Forged challenges cost nothing and count for nothing.
        for _ in 0..<5 {
            var forged = service.challenge()
            forged[31] ^= 1
            let refused = try await unavailable(address, challenge: forged)
            XCTAssertNil(refused)
        }
        for _ in 0..<2 {
            let refused = try await unavailable(address)
            XCTAssertNil(refused)
        }
        guard case .busy(let retryAfter, .address) = try await unavailable(address) else { return XCTFail("a third verification from the address") }
        XCTAssertGreaterThanOrEqual(retryAfter, 1)
        guard case .busy(_, .network) = try await unavailable(neighbour) else { return XCTFail("the network's share is spent too") }
        // A flood of valid challenges with junk proofs: the shares are asked before anything is written, and a failed
        // proof writes nothing at all.
        for _ in 0..<20 { _ = try await unavailable(address) }
        let spent = try await rows("app_attest_spent_challenges")
        XCTAssertEqual(spent, 0, "the flood wrote no row")

        let small = self.service(budget: .init(ratePerMinute: 1, burst: 1, clientShare: 1))
        _ = try await small.token(keyID: Array(repeating: 1, count: 32), assertion: [0xA0], challenge: small.challenge(), client: address)
        do {
            _ = try await small.token(keyID: Array(repeating: 1, count: 32), assertion: [0xA0], challenge: small.challenge(), client: neighbour)
            XCTFail("the server's budget is spent")
        } catch {
            XCTAssertEqual(error, .busy(retryAfter: 60, whose: .everybody))
        }
    }

    /// Migration 0022 moved the day's registrations per network into Limits' one table: a network that had registered
    /// its devices before the upgrade has still registered them after it.
    func testRegistrationsCountedBeforeTheUpgradeStillCount() async throws {
        let previous = try TestDatabase.create()
        defer { previous.drop() }
        let old = try await previous.migratedPool(through: 21)
        let today = DailyCounter.day(Date())
        _ = try await old.execute(
            "INSERT INTO app_attest_registrations (network, day, registrations) VALUES ('198.51.100.0/24', $1::date, 2), ('2001:db8::/48', $1::date - 3, 1)",
            [today.description])
        let upgraded = try await previous.migratedPool()
        let counter = service().registrations
        let counted = try await counter.count("198.51.100.0/24", day: today, in: upgraded)
        XCTAssertEqual(counted, 2)
        let moved = try await upgraded.query("SELECT count(*)::int AS n FROM daily_counts WHERE scope = $1", [counter.scope])
        XCTAssertEqual(try moved[0].decode(Int.self, "n"), 2, "every row moved, old days too (the next registration drops them)")
    }

    func testANetworkRegistersItsDaysDevicesAndNoMore() async throws {
        let service = service { $0.registrationsPerDay = 2 }
        func register(from text: String) async throws -> Result<String, AppAttestFailure>? {
            let device = TestDevice(app: app), challenge = service.challenge()
            do {
                return try await service.register(
                    keyID: device.keyID, attestation: try device.attestation(clientData: challenge, authority: authority), challenge: challenge,
                    client: IPAddress(text))
            } catch AppAttestService.Unavailable.busy(let retryAfter, .registrations) {
                XCTAssertLessThanOrEqual(retryAfter, 86_400, "until the next UTC day")
                return nil
            }
        }
        let first = try await register(from: "198.51.100.7"), second = try await register(from: "198.51.100.8")
        XCTAssertNotNil(try first?.get())
        XCTAssertNotNil(try second?.get())
        let third = try await register(from: "198.51.100.9")
        XCTAssertNil(third, "the /24 has registered its two")
        for (address, why) in [("198.51.101.9", "another /24"), ("2001:db8:1::1", "a /48"), ("2001:db8:1:ff::1", "another /64 of the /48")] {
            let registered = try await register(from: address)
            XCTAssertNotNil(try registered?.get(), why)
        }
        let sameSite = try await register(from: "2001:db8:1:7::1")
        XCTAssertNil(sameSite, "the /48 has registered its two")
        let counted = try await pool.query("SELECT key, count FROM daily_counts WHERE scope = 'app-attest-registrations' ORDER BY key")
            .map { "\(try $0.decode(String.self, "key"))=\(try $0.decode(Int.self, "count"))" }
        XCTAssertEqual(counted, ["198.51.100.0/24=2", "198.51.101.0/24=1", "2001:db8:1::/48=2"])
        let devices = try await rows("app_attest_devices")
        XCTAssertEqual(devices, 5)
    }

    func testEverySpendingRequestIsCountedByItsStateAndMonitorRefusesNothing() async throws {
        let clock = Mutex(0.0)
        let registrar = service()
        let device = TestDevice(app: app)
        let token = try await register(device, on: registrar)
        let revokedDevice = TestDevice(app: app)
        let revokedToken = try await register(revokedDevice, on: registrar)
        _ = try await AppAttestStore(pool: pool).revoke(revokedDevice.keyID)
        let expired = registrar.tokens.issue(.device(device.keyID), now: Date().addingTimeInterval(-3601))
        let address = try XCTUnwrap(IPAddress("198.51.100.7"))
        let tokens: [(String?, SpendingState)] = [(token, .verified), (nil, .missing), (expired, .expired), (String(token.reversed()), .forged), (revokedToken, .revoked)]
        for mode in [AppAttestMode.monitor, .prefer, .require] {
            let service = AppAttestService(
                settings: { var settings = AppAttestFeature.Settings(); settings.mode = mode; settings.apps = [app]; return settings }(),
                secret: secret, roots: [authority.root], store: AppAttestStore(pool: pool), metrics: nil, clock: { clock.withLock { $0 } })
            try await service.load()
            let credentials = AppAttestCredentials(service: service)
            for (token, state) in tokens {
                var request = HTTPRequest(method: .get, target: "/v1/places", path: "/v1/places")
                if let token { request.headers.add("X-Pier-App-Token", token) }
                let client = credentials.spender(of: request, so: Spender(address))
                switch (mode, state) {
                case (.monitor, _):
                    XCTAssertEqual(client.groups, address.groups, "monitor: every client is its address")
                    XCTAssertNil(client.refusal)
                case (_, .verified):
                    XCTAssertEqual(client.groups, [ClientGroup(device: device.keyID)])
                    XCTAssertNil(client.refusal)
                case (.prefer, .missing):
                    XCTAssertEqual(client.groups, address.groups + [.anonymous])
                    XCTAssertNil(client.refusal)
                default:
                    XCTAssertNotNil(client.refusal, "\(mode) \(state)")
                }
            }
            let hour = service.lastHour
            XCTAssertEqual(hour.requests, 5, "\(mode)")
            XCTAssertEqual(hour.provenShare, 0.2, "\(mode): one of five would be served by require")
            clock.withLock { $0 += 3601 }
            XCTAssertEqual(service.lastHour.requests, 0, "an hour later")
            XCTAssertNil(service.lastHour.provenShare)
        }
    }

    func testADebugDeviceSpendsOnItsOwnShareUntilRevoked() async throws {
        let store = AppAttestStore(pool: pool)
        let secretToken = "pier-debug-\(UUID().uuidString)"
        let created = try await store.createDebugDevice("ci-runner", tokenHash: DebugToken.hash(of: secretToken))
        XCTAssertTrue(created)
        let again = try await store.createDebugDevice("ci-runner", tokenHash: Array(SHA256.hash(data: Array("other".utf8))))
        XCTAssertFalse(again, "a name is never reused")
        let service = service { $0.debugDevices = true }
        try await service.load()
        XCTAssertEqual(service.debugCount, 1)
        let token = try service.debug(token: secretToken, client: nil).get()
        XCTAssertEqual(token.count, 99)
        XCTAssertEqual(try service.debug(token: secretToken + "x", client: nil).failure, .debugToken)
        let (state, group) = service.spender(token: Substring(token), now: Date())
        XCTAssertEqual(state, .debug)
        XCTAssertEqual(try group.get(), ClientGroup(debug: "ci-runner"))
        XCTAssertEqual(try group.get().description, "debug/ci-runner")
        XCTAssertTrue(try group.get().kind.isSubscriber, "a subscriber's share of each day")

        // Off: neither exchanged nor taken.
        let off = self.service()
        try await off.load()
        XCTAssertEqual(try off.debug(token: secretToken, client: nil).failure, .debugOff)
        XCTAssertEqual(off.spender(token: Substring(token), now: Date()).0, .revoked)

        let revoked = try await store.revokeDebugDevice("ci-runner")
        XCTAssertTrue(revoked)
        try await service.load()
        XCTAssertEqual(service.spender(token: Substring(token), now: Date()).0, .revoked, "its tokens end with it")
        XCTAssertEqual(try service.debug(token: secretToken, client: nil).failure, .debugToken)
        let listed = try await store.debugDevices()
        XCTAssertEqual(listed.map(\.name), ["ci-runner"])
        XCTAssertNotNil(listed.first?.revoked)
        XCTAssertFalse(ClientGroup.isDebugName("with space"))
        XCTAssertFalse(ClientGroup.isDebugName(""))
        XCTAssertFalse(ClientGroup.isDebugName(String(repeating: "a", count: 65)))
        XCTAssertTrue(ClientGroup.isDebugName("Simulator_iPhone-16.2"))
    }

    func testTokensAndChallengesOfThePreviousSecretHoldThroughARotation() async throws {
        let before = service()
        let rotated = service(secret: String(repeating: "n", count: 40)) { $0.previousSecret = self.secret }
        let after = service(secret: String(repeating: "n", count: 40))
        var device = TestDevice(app: app)
        let token = try await register(device, on: before)
        XCTAssertEqual(rotated.spender(token: Substring(token), now: Date()).0, .verified, "the previous secret's token holds its hour")
        XCTAssertEqual(after.spender(token: Substring(token), now: Date()).0, .forged, "without the previous secret it ends")
        let challenge = before.challenge()
        let exchanged = try await rotated.token(keyID: device.keyID, assertion: try device.assertion(clientData: challenge), challenge: challenge, client: nil)
        let fresh = try exchanged.get()
        XCTAssertEqual(after.spender(token: Substring(fresh), now: Date()).0, .verified, "new tokens are the new secret's")
        XCTAssertEqual(before.spender(token: Substring(fresh), now: Date()).0, .forged)
        XCTAssertNotEqual(SignedBytes.Key(secret: secret).id, SignedBytes.Key(secret: String(repeating: "n", count: 40)).id, "(these two secrets' ids differ)")
    }

    func testDevicesAndTheAnonymousPoolAreGroupsOfTheirOwn() throws {
        let device = ClientGroup(device: Array(0..<32))
        XCTAssertEqual(device.description, "device/000102030405060708090a0b0c0d0e0f")
        XCTAssertEqual(ClientGroup.anonymous.description, "anonymous")
        XCTAssertNotEqual(device, ClientGroup(device: Array(1..<33)))
        XCTAssertEqual(DailyShares().limit(of: .device, day: 1000, units: 1), 50, "a device has a subscriber's share")
        XCTAssertEqual(DailyShares().limit(of: .anonymous, day: 1000, units: 1), 100, "every tokenless client together: a tenth of the day")
    }
}

extension Result {
    /// The failure, if any.
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
