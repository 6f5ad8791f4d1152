import APNs
import APNsFormat
import Crypto
import DatabaseTesting
import Feature
import Foundation
import Geography
import Metrics
import Postgres
@testable import Push
import Scheduling
import UpstreamHTTP
import UpstreamTesting
@testable import WarningPush
import WarningPushFormat
@testable import Warnings
import XCTest

/// FMI's two recorded publications (moved to now) read into PostgreSQL, devices registered at the fixtures' points,
/// the notifier's decisions, and the pushes delivered to the APNs stand-in: who gets what, in which language, once.
final class WarningPushTests: ServiceTestCase {
    private var warnings: WarningsService!
    private var standIn: APNsStandIn!
    private var client: APNsClient!
    private var delivery: PushDelivery!
    private var store: WarningSubscriptionStore!
    private let key = P256.Signing.PrivateKey()

    override func setUp() async throws {
        try await super.setUp()
        warnings = WarningsService(
            client: WarningsClient(feedURL: upstream.fmiWarningsURL, client: UpstreamClient()), store: WarningStore(pool: pool), board: SourceStatusBoard(),
            staleAfter: .seconds(450))
        standIn = try APNsStandIn(keyID: "KEY1234567", teamID: "TEAM123456", topic: "fi.example.weather", publicKeyPEM: key.publicKey.pemRepresentation)
        client = APNsClient(
            configuration: .init(
                topic: "fi.example.weather", origins: [.production: standIn.origin, .development: standIn.origin],
                transport: .init(timeout: .seconds(10), caFile: standIn.caFile)),
            token: ProviderToken(key: key, keyID: "KEY1234567", teamID: "TEAM123456"))
        delivery = PushDelivery(outbox: PushOutbox(pool: pool), sender: client, settings: .init(), metrics: PushMetrics(registry: MetricsRegistry()))
        store = WarningSubscriptionStore(pool: pool)
    }

    override func tearDown() {
        client?.stop()
        standIn?.stop()
        super.tearDown()
    }

    private func token(_ n: Int) -> String { String(format: "%064x", n) }

    private func register(_ n: Int, _ places: [(Double, Double)], severity: String = "moderate", language: String, allClear: Bool) async throws -> String {
        let list = places.map { #"{"lat":\#($0.0),"lon":\#($0.1)}"# }.joined(separator: ",")
        let body = #"{"token":"\#(token(n))","environment":"production","language":"\#(language)","places":[\#(list)],"min_severity":"\#(severity)","all_clear":\#(allClear)}"#
        return try await store.create(try DeviceRegistration(json: Array(body.utf8))).id
    }

    /// What the stand-in received since the last call: token number → payloads.
    private func deliveredSince(_ seen: inout Int) throws -> [Int: [String]] {
        let pushes = try standIn.received()
        defer { seen = pushes.count }
        var byDevice: [Int: [String]] = [:]
        for push in pushes.dropFirst(seen) {
            XCTAssertEqual(push.status, 200)
            byDevice[Int(push.token, radix: 16) ?? -1, default: []].append(push.payload)
        }
        return byDevice
    }

    private func title(_ payload: String) throws -> String {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
        return try XCTUnwrap(((object["aps"] as? [String: Any])?["alert"] as? [String: Any])?["title"] as? String)
    }

    /// The fixtures' headline of `key` (`wind_helsinki_v1`, …) in `language`.
    private func headline(_ key: String, _ language: String) throws -> String {
        let data = try Data(contentsOf: Fixtures.root.appendingPathComponent("fmi-warnings/expected.json"))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let warning = try XCTUnwrap((object["warnings"] as? [String: [String: Any]])?.values.first { $0["key"] as? String == key })
        return try XCTUnwrap((warning["headline"] as? [String: String])?[language])
    }

    private func deliverAll() async throws {
        while try await delivery.deliverDue().claimed > 0 {}
    }

    func testAnAlertAnUpdateACancelAndAWarningThatLeftTheFeed() async throws {
        let notifier = WarningNotifier(pool: pool)
        // 1 Helsinki (Finnish, all-clear), 2 three places in Helsinki's wind area but only severe ones (Swedish),
        // 3 Tampere (English, all-clear), 4 Rovaniemi (English, all-clear), 5 Oulu (no warning there).
        _ = try await register(1, [(60.17, 24.94)], language: "fi", allClear: true)
        _ = try await register(2, [(60.17, 24.94), (60.2031, 24.9612), (60.18, 24.95)], severity: "severe", language: "sv", allClear: false)
        _ = try await register(3, [(61.5, 23.76)], language: "en", allClear: true)
        _ = try await register(4, [(66.5, 25.72)], language: "en", allClear: true)
        _ = try await register(5, [(65.0121, 25.4651)], language: "fi", allClear: true)
        var seen = 0

        upstream.set(.fmiWarnings, .previousPublication)
        _ = try await warnings.refresh()
        let first = try await notifier.notify()
        XCTAssertEqual(first.pushes, 6)
        try await deliverAll()
        var got = try deliveredSince(&seen)
        XCTAssertEqual(Set(try got[1, default: []].map(title)), [try headline("traffic_uusimaa", "fi"), try headline("wind_helsinki_v1", "fi")])
        XCTAssertNil(got[2], "moderate warnings are below the severe threshold")
        XCTAssertEqual(got[3]?.count, 2)
        XCTAssertEqual(got[4]?.count, 2)
        XCTAssertNil(got[5])

        // The same publication looked at again, or by a new notifier (a restart, another replica): nothing.
        let again = try await WarningNotifier(pool: pool).notify()
        XCTAssertEqual(again.pushes + again.allClears, 0)

        upstream.set(.fmiWarnings, .normal)
        _ = try await warnings.refresh()
        let second = try await notifier.notify()
        XCTAssertEqual(second.pushes, 2, "the Update's rise to severe: Helsinki again, and the severe-only device for the first time")
        XCTAssertEqual(second.allClears, 2, "Pirkanmaa's cancelled wind and Rovaniemi's warning that left the feed")
        try await deliverAll()
        got = try deliveredSince(&seen)
        XCTAssertEqual(try got[1].map { try $0.map(title) }, [try headline("wind_helsinki_v2", "fi")])
        XCTAssertEqual(try got[2].map { try $0.map(title) }, [try headline("wind_helsinki_v2", "sv")], "one push for three places, in Swedish")
        XCTAssertEqual(try got[3].map { try $0.map(title) }, ["Warning ended"])
        XCTAssertEqual(try got[4].map { try $0.map(title) }, ["Warning ended"])
        XCTAssertNil(got[5])
        let pushes = try standIn.received()
        let update = try XCTUnwrap(pushes.first { $0.token == token(2) })
        XCTAssertEqual(update.collapse_id, "urn:oid:2.49.0.1.246.0.0.5.4101.1", "an update replaces the original on the device")
        XCTAssertGreaterThan(Int(update.expiration ?? "") ?? 0, Int(Date().timeIntervalSince1970), "expires with the warning")

        let third = try await WarningNotifier(pool: pool).notify()
        XCTAssertEqual(third.pushes + third.allClears, 0, "never twice")
    }

    func testADeviceRegisteredWhileAWarningIsInForceIsToldAtTheNextLook() async throws {
        upstream.set(.fmiWarnings, .normal)
        _ = try await warnings.refresh()
        let notifier = WarningNotifier(pool: pool)
        _ = try await notifier.notify()
        _ = try await register(7, [(60.2031, 24.9612)], language: "en", allClear: false)
        let summary = try await notifier.notify()
        XCTAssertEqual(summary.pushes, 2, "Helsinki's orange wind and the traffic warning")
    }

    /// What the notifier told a device goes with the device, however it goes (its app deleting it, APNs saying its token
    /// is gone, the retention), and a forgotten warning's rows with it — kept by a trigger and the notifier's own
    /// delete since the table has no foreign keys (Migrations/0026): Push deletes the rows it was told name devices
    /// (`push_forget_devices_in`, Migrations/Push/0041 and WarningPush/0042).
    func testWhatADeviceWasToldGoesWithItAndWithItsWarning() async throws {
        upstream.set(.fmiWarnings, .normal)
        _ = try await warnings.refresh()
        let kept = try await register(8, [(60.2031, 24.9612)], language: "en", allClear: false)
        let deleted = try await store.create(try DeviceRegistration(json: Array(
            #"{"token":"\#(token(9))","environment":"production","language":"fi","places":[{"lat":60.17,"lon":24.94}]}"#.utf8)))
        let retired = try await register(10, [(60.18, 24.95)], language: "sv", allClear: false)
        _ = try await WarningNotifier(pool: pool).notify()
        func told(_ id: String) async throws -> Int {
            try await pool.query("SELECT count(*)::int AS n FROM warning_notified WHERE device_id = $1::uuid", [id])[0].decode(Int.self, "n")
        }
        for id in [kept, deleted.id, retired] {
            let count = try await told(id)
            XCTAssertEqual(count, 2, "Helsinki's wind and the traffic warning")
        }

        let removed = try await store.delete(deleted.id, secret: deleted.secret)
        XCTAssertTrue(removed)
        try await pool.execute("UPDATE push_devices SET seen_at = now() - interval '400 days' WHERE id = $1::uuid", [retired])
        try await PushOutbox(pool: pool).prune(deviceRetention: .seconds(86_400), keep: .seconds(86_400))
        let (afterDelete, afterRetention, untouched) = (try await told(deleted.id), try await told(retired), try await told(kept))
        XCTAssertEqual(afterDelete, 0, "deleted by its app")
        XCTAssertEqual(afterRetention, 0, "deleted for not being seen")
        XCTAssertEqual(untouched, 2)

        try await pool.execute("UPDATE warning_push_roots SET ended_at = now() - interval '8 days' WHERE root = (SELECT min(root) FROM warning_notified)")
        _ = try await WarningNotifier(pool: pool).notify()
        let afterForgetting = try await told(kept)
        XCTAssertEqual(afterForgetting, 1, "the forgotten warning's row went with it")
    }
}

/// A registration's places by name: read, normalised and deduplicated; then replaced by the points they resolve to.
final class DeviceRegistrationTests: XCTestCase {
    func testPlacesByNameAreNormalisedAndReplacedByTheirRoundedPoints() throws {
        let body = #"{"token":"\#(String(repeating: "0a", count: 32))","environment":"production","places":[{"place":"  Kumpula \t"},{"lat":60.2,"lon":24.96},{"place":"Kumpula"},{"place":"Oulu"}]}"#
        let registration = try DeviceRegistration(json: Array(body.utf8))
        XCTAssertEqual(registration.placeNames, ["Kumpula", "Oulu"])
        XCTAssertEqual(registration.places.count, 1)
        let resolved = registration.resolved([try XCTUnwrap(Coordinate(latitude: 60.20307, longitude: 24.96131)), try XCTUnwrap(Coordinate(latitude: 65.0124, longitude: 25.4682))])
        XCTAssertEqual(resolved.placeNames, [])
        XCTAssertEqual(resolved.places.map { [$0.latitude, $0.longitude] }, [[60.2, 24.96], [65.01, 25.47]], "Kumpula's point was saved already")
        let long = #"{"token":"\#(String(repeating: "0a", count: 32))","environment":"production","places":[{"place":"\#(String(repeating: "x", count: 101))"}]}"#
        XCTAssertThrowsError(try DeviceRegistration(json: Array(long.utf8))) { error in
            XCTAssertEqual((error as? DeviceRegistration.Problem)?.description.hasPrefix("places[0]: expected"), true, "\(error)")
        }
    }
}
