import DatabaseTesting
import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// Official warnings pushed by the real binary: devices registered over HTTP, FMI's feed read by the fetcher (the
/// local double), the pushes delivered to the APNs stand-in over HTTP/2 and TLS; the routes' refusals; the feature off
/// without a key.
final class PushEndToEndTests: EndToEndTestCase {
    /// pier with an APNs key pointed at a fresh stand-in.
    private func startPierWithPush(_ extra: [String: String] = [:]) throws -> (PierProcess, APNsStandIn) {
        let (standIn, settings) = try apnsStandIn()
        return (try startPier(settings.merging(extra) { $1 }), standIn)
    }

    private func send(_ pier: PierProcess, _ method: String, _ target: String, secret: String? = nil, body: String? = nil) throws -> RawResponse {
        var headers: [(String, String)] = []
        if let secret { headers.append(("Authorization", "Bearer \(secret)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        return try RawClient(port: pier.port).request(method, target, headers: headers, body: Array((body ?? "").utf8))
    }

    private func registration(token: Int, places: String, language: String = "fi", severity: String = "moderate") -> String {
        #"{"token":"\#(String(format: "%064x", token))","environment":"production","language":"\#(language)","places":\#(places),"min_severity":"\#(severity)","all_clear":true}"#
    }

    private func waitForPushes(_ standIn: APNsStandIn, count: Int, within seconds: Double = 30) throws -> [APNsStandIn.Push] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let pushes = try standIn.received()
            if pushes.count >= count { return pushes }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return try standIn.received()
    }

    func testARegisteredDeviceGetsTheWarningsOverItsPlacesInItsLanguage() throws {
        let (pier, standIn) = try startPierWithPush()
        let created = try send(pier, "POST", "/v1/devices", body: registration(token: 1, places: #"[{"lat":60.2031,"lon":24.9612}]"#, language: "sv"))
        XCTAssertEqual(created.status, 201, created.bodyText)
        XCTAssertEqual(created.header("Cache-Control"), "no-store")
        let made = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: String])
        let id = try XCTUnwrap(made["id"]), secret = try XCTUnwrap(made["secret"])
        XCTAssertEqual(created.header("Location"), "/v1/devices/\(id)")
        _ = try send(pier, "POST", "/v1/devices", body: registration(token: 2, places: #"[{"lat":65.0121,"lon":25.4651}]"#))

        // Kumpula: the orange wind warning and the traffic warning, in Swedish; Oulu: nothing.
        let pushes = try waitForPushes(standIn, count: 2)
        XCTAssertEqual(pushes.count, 2)
        XCTAssertEqual(Set(pushes.map(\.token)), [String(format: "%064x", 1)])
        XCTAssertTrue(pushes.allSatisfy { $0.payload.contains("\"thread-id\":\"warnings\"") && $0.topic == "fi.example.weather" && $0.push_type == "alert" })
        XCTAssertTrue(pushes.contains { $0.payload.contains("Orange vindvarning") || $0.payload.contains("Orange") }, "\(pushes.map(\.payload))")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try standIn.received().count, 2, "nothing twice")

        let shown = try send(pier, "GET", "/v1/devices/\(id)", secret: secret)
        XCTAssertEqual(shown.status, 200, shown.bodyText)
        let device = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.body)) as? [String: Any])
        XCTAssertEqual(device["language"] as? String, "sv")
        XCTAssertEqual((device["places"] as? [[String: Double]])?.first, ["lat": 60.2, "lon": 24.96], "stored rounded to about a kilometre")
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains("\"push\":{\"state\":\"ok\""), health)
        XCTAssertFalse(health.contains(String(format: "%064x", 1)) || health.contains("60.2"), "no token, no place in /health")
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains("pier_push_total{result=\"delivered\",reason=\"none\"} 2"), metrics)

        XCTAssertEqual(try send(pier, "DELETE", "/v1/devices/\(id)", secret: secret).status, 204)
        XCTAssertEqual(try send(pier, "GET", "/v1/devices/\(id)", secret: secret).status, 404)
        XCTAssertEqual(try send(pier, "DELETE", "/v1/devices/\(id)", secret: secret).status, 404)
        XCTAssertEqual(pier.stop(), 0)
        XCTAssertFalse(pier.standardOutput().contains(String(format: "%064x", 1)), "no token in the logs")
    }

    func testBadInputIsRefusedWithItsReasonAndNothingIsStored() throws {
        let (pier, _) = try startPierWithPush(["PIER_FETCH": "off"])
        let cases: [(String, String)] = [
            ("not json", "the body must be a JSON object"),
            (#"{"environment":"production","places":[{"lat":60,"lon":25}]}"#, "token:"),
            (#"{"token":"zz","environment":"production","places":[{"lat":60,"lon":25}]}"#, "token:"),
            (registration(token: 3, places: "[]"), "places:"),
            (registration(token: 3, places: #"[{"lat":91,"lon":25}]"#), "places[0]:"),
            (registration(token: 3, places: #"[{"place":"Kumpula","lat":60}]"#), "places[0]:"),
            (registration(token: 3, places: #"[{"place":"  "}]"#), "places[0]:"),
            (registration(token: 3, places: "[" + Array(repeating: #"{"lat":60,"lon":25}"#, count: 11).joined(separator: ",") + "]"), "places:"),
            (registration(token: 3, places: #"[{"lat":60,"lon":25}]"#, language: "de"), "language:"),
            (registration(token: 3, places: #"[{"lat":60,"lon":25}]"#, severity: "minor"), "min_severity:"),
            (#"{"token":"\#(String(format: "%064x", 3))","environment":"staging","places":[{"lat":60,"lon":25}]}"#, "environment:"),
        ]
        for (body, reason) in cases {
            let response = try send(pier, "POST", "/v1/devices", body: body)
            XCTAssertEqual(response.status, 400, body)
            XCTAssertTrue(response.bodyText.contains(reason), "\(body) → \(response.bodyText)")
        }
        let rows = try database.connection().query("SELECT count(*)::int AS n FROM push_devices")[0].decode(Int.self, "n")
        XCTAssertEqual(rows, 0, "nothing stored")
        XCTAssertEqual(try send(pier, "GET", "/v1/devices/00000000-0000-0000-0000-000000000000").status, 401)
        XCTAssertEqual(try send(pier, "GET", "/v1/devices/not-a-uuid", secret: "x").status, 404)
        let created = try send(pier, "POST", "/v1/devices", body: registration(token: 4, places: #"[{"lat":60,"lon":25}]"#))
        let id = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: String])?["id"])
        XCTAssertEqual(try send(pier, "GET", "/v1/devices/\(id)", secret: "not-its-secret").status, 401)
    }

    func testAPlaceSavedByNameIsLookedUpByFMIAndRegistrationsAreLimited() throws {
        // Five registrations at once for one address (a share of 5 with almost no refill), two a day for its network.
        let (pier, _) = try startPierWithPush([
            "PIER_FETCH": "off", "PIER_PUSH_REGISTRATIONS_PER_DAY": "2",
            "PIER_PUSH_DEVICES_REQUESTS_PER_MINUTE": "6", "PIER_PUSH_DEVICES_BURST": "100", "PIER_PUSH_DEVICES_CLIENT_SHARE": "0.05",
        ])
        let created = try send(pier, "POST", "/v1/devices", body: registration(token: 6, places: #"[{"place":" kumpula "},{"lat":65.01,"lon":25.47}]"#))
        XCTAssertEqual(created.status, 201, created.bodyText)
        let made = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: String])
        let shown = try send(pier, "GET", "/v1/devices/\(try XCTUnwrap(made["id"]))", secret: try XCTUnwrap(made["secret"]))
        let device = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.body)) as? [String: Any])
        XCTAssertEqual(
            device["places"] as? [[String: Double]], [["lat": 65.01, "lon": 25.47], ["lat": 60.2, "lon": 24.96]],
            "Kumpula stored as FMI's point for it, rounded")
        XCTAssertEqual(upstream.requests(.fmi).filter { $0.query["place"] != nil }.count, 1)

        let unknown = try send(pier, "POST", "/v1/devices", body: registration(token: 7, places: #"[{"place":"Atlantis"}]"#))
        XCTAssertEqual(unknown.status, 422, "not 404: on /v1/devices/{id} that says the registration is gone")
        XCTAssertEqual(unknown.bodyText, #"{"error":"places: FMI knows no place by that name"}"#, "the name is not repeated")
        XCTAssertEqual(try send(pier, "POST", "/v1/devices", body: registration(token: 8, places: #"[{"lat":60,"lon":25}]"#)).status, 201)
        // The network's two of the day are made: the next new device waits for tomorrow (UTC), and nothing is stored.
        for token in 9...10 {
            let refused = try send(pier, "POST", "/v1/devices", body: registration(token: token, places: #"[{"lat":60,"lon":25}]"#))
            XCTAssertEqual(refused.status, 429, refused.bodyText)
            XCTAssertTrue(refused.bodyText.contains("this network has made its device registrations for today"), refused.bodyText)
            let retryAfter = try XCTUnwrap(Int(refused.header("Retry-After") ?? ""))
            XCTAssertTrue((1...86_400).contains(retryAfter), "until midnight UTC: \(retryAfter)")
            XCTAssertEqual(refused.header("Cache-Control"), "no-store")
        }
        // The sixth request at once is past the address's share, before anything is read or stored.
        let past = try send(pier, "POST", "/v1/devices", body: registration(token: 11, places: #"[{"lat":60,"lon":25}]"#))
        XCTAssertEqual(past.status, 429, past.bodyText)
        XCTAssertTrue(past.bodyText.contains("this client has made its share of device registrations"), past.bodyText)
        XCTAssertNotNil(past.header("Retry-After"))

        let connection = try database.connection()
        XCTAssertEqual(try connection.query("SELECT count(*)::int AS n FROM push_devices")[0].decode(Int.self, "n"), 2)
        XCTAssertEqual(
            try connection.query("SELECT key, count FROM daily_counts WHERE scope = 'push-registrations'").map {
                "\(try $0.decode(String.self, "key"))=\(try $0.decode(Int.self, "count"))"
            }, ["127.0.0.0/24=2"])
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_push_registrations_refused_total{reason="network_day"} 2"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_push_registrations_refused_total{reason="share"} 1"#), metrics)
        XCTAssertEqual(pier.stop(), 0)
        XCTAssertFalse(pier.standardOutput().lowercased().contains("kumpula"), "no place in the logs")
    }

    /// The warnings feed as the double serves it, switched from FMI's previous publication to its current one while
    /// the binary runs: an Update that raises the severity, a Cancel, a warning that left the feed; a token APNs says
    /// is gone.
    func testAnUpdateACancelAndADeadTokenThroughTheBinary() throws {
        upstream.set(.fmiWarnings, .previousPublication)
        let (pier, standIn) = try startPierWithPush(["PIER_WARNINGS_INTERVAL_S": "1"])
        // 1 Helsinki (Finnish, all-clear), 3 Tampere (English, all-clear), 4 Rovaniemi, whose token APNs says is gone.
        try standIn.script(String(format: "%064x", 4), [["status": 410, "reason": "Unregistered", "timestamp": Int(Date().timeIntervalSince1970 * 1000) + 60_000]])
        for (token, places, language) in [(1, #"[{"lat":60.17,"lon":24.94}]"#, "fi"), (3, #"[{"lat":61.5,"lon":23.76}]"#, "en"), (4, #"[{"lat":66.5,"lon":25.72}]"#, "en")] {
            XCTAssertEqual(try send(pier, "POST", "/v1/devices", body: registration(token: token, places: places, language: language)).status, 201)
        }
        var pushes = try waitForPushes(standIn, count: 5)
        func received(_ token: Int) -> [APNsStandIn.Push] { pushes.filter { $0.token == String(format: "%064x", token) } }
        XCTAssertEqual(received(1).count, 2, "Uusimaa's traffic warning and Helsinki's yellow wind")
        XCTAssertEqual(received(3).count, 2, "Tampere's pedestrian warning and Pirkanmaa's wind")
        XCTAssertEqual(received(4).first?.status, 410)
        let gone = try eventually(within: 20) { try self.database.connection().query("SELECT count(*)::int AS n FROM push_devices")[0].decode(Int.self, "n") == 2 }
        XCTAssertTrue(gone, "the device whose token is gone is deleted")
        pushes = try standIn.received()  // the gone device's round is recorded whole
        let windCollapse = "urn:oid:2.49.0.1.246.0.0.5.4101.1"  // the yellow wind warning's identifier: its root
        XCTAssertTrue(received(1).contains { $0.collapse_id == windCollapse })
        let before = pushes.count

        upstream.set(.fmiWarnings, .normal)
        pushes = try waitForPushes(standIn, count: before + 2)
        let after = Array(pushes.dropFirst(before))
        XCTAssertEqual(after.count, 2, "\(after.map(\.payload))")
        let update = try XCTUnwrap(after.first { $0.token == String(format: "%064x", 1) })
        XCTAssertEqual(update.collapse_id, windCollapse, "the Update replaces the yellow wind push on the device")
        XCTAssertTrue(update.payload.lowercased().contains("oranssi"), update.payload)
        let cleared = try XCTUnwrap(after.first { $0.token == String(format: "%064x", 3) })
        XCTAssertTrue(cleared.payload.contains("Warning ended") && cleared.payload.contains("\"ended\":true"), cleared.payload)
        XCTAssertTrue(received(3).contains { $0.collapse_id == cleared.collapse_id }, "the all-clear replaces the cancelled warning's push")
        Thread.sleep(forTimeInterval: 1.5)  // the feed read again (every second) and looked at
        XCTAssertEqual(try standIn.received().count, before + 2, "nothing more: the same publication read again tells nobody twice")
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains("pier_push_devices_removed_total 1"), metrics)
        XCTAssertEqual(pier.stop(), 0)
    }

    /// A replica killed with its batch in flight (APNs slow to answer) leaves its claim to the other two after the
    /// lease: everything is delivered, over both survivors' connections, and nothing is sent twice within the lease.
    func testTwoReplicasDeliverOneOutboxAndOneKilledMidBatchLosesNothing() throws {
        let (standIn, settings) = try apnsStandIn()
        let devices = 20
        let connection = try database.connection()
        _ = try connection.execute(
            """
            WITH made AS (
                INSERT INTO push_devices (id, app, token, environment)
                SELECT md5('device' || i)::uuid, 'warnings', lpad(to_hex(i), 64, '0'), 'production' FROM generate_series(1, $1) i RETURNING id
            )
            INSERT INTO warning_subscriptions (device_id, secret_hash, language, places, min_severity, all_clear)
            SELECT id, 'x', 'fi', ST_GeomFromText('MULTIPOINT(24.96 60.2)', 4326), 2, false FROM made
            """, [devices])
        try standIn.delay(milliseconds: 400)
        let replica = settings.merging(["PIER_PUSH_BATCH": "5", "PIER_PUSH_LEASE_S": "3"]) { $1 }
        let first = try startPier(replica)
        // Its first batch claimed and sent, APNs not yet answering: killed.
        let claimed = try eventually(within: 20) {
            try connection.query("SELECT count(*)::int AS n FROM push_outbox WHERE state = 'pending' AND leased_until > now()")[0].decode(Int.self, "n") > 0
        }
        XCTAssertTrue(claimed)
        Thread.sleep(forTimeInterval: 0.2)
        _ = first.stop(signal: SIGKILL)
        let leaseEnds = try XCTUnwrap(
            try connection.query("SELECT extract(epoch FROM max(leased_until))::float8 AS t FROM push_outbox")[0].decode(Double?.self, "t"))
        let second = try startPier(replica), third = try startPier(replica)
        let all = 2 * devices  // Kumpula: the orange wind and the traffic warning
        let delivered = try eventually(within: 30) {
            try connection.query("SELECT count(*)::int AS n FROM push_outbox WHERE state = 'delivered'")[0].decode(Int.self, "n") == all
        }
        XCTAssertTrue(delivered, "every push delivered")
        let pushes = try standIn.received()
        let keys = pushes.map { "\($0.token) \($0.collapse_id ?? "")" }
        XCTAssertEqual(Set(keys).count, all, "each device got both warnings")
        var seen: [String: Double] = [:]
        for (key, push) in zip(keys, pushes) {
            if seen[key] != nil {
                XCTAssertGreaterThanOrEqual(push.at, leaseEnds - 0.5, "a push sent again only once the killed replica's lease ended")
            }
            seen[key] = push.at
        }
        XCTAssertLessThanOrEqual(keys.count - Set(keys).count, 5, "sent twice at most: the killed replica's batch in flight")
        let firstConnection = pushes.map(\.connection).min() ?? 0
        XCTAssertGreaterThanOrEqual(Set(pushes.map(\.connection).filter { $0 != firstConnection }).count, 2, "both survivors delivered")
        XCTAssertEqual(second.stop(), 0)
        XCTAssertEqual(third.stop(), 0)
    }

    func testWithoutAKeyPushesAreOffAndSaySo() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        let response = try send(pier, "POST", "/v1/devices", body: registration(token: 5, places: #"[{"lat":60,"lon":25}]"#))
        XCTAssertEqual(response.status, 503)
        XCTAssertNotNil(response.header("Retry-After"))
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""push":{"state":"disabled","missing":["PIER_APNS_KEY_FILE","PIER_APNS_KEY_ID","PIER_APNS_TEAM_ID","PIER_APNS_TOPIC"]}"#), health)
    }
}
