import Foundation
import HTTPTesting
import XCTest

/// Live check-ins through the real binary: the official Python client (`realtime`, protocol 1.0.0) across two replicas,
/// a client of our own speaking protocol 2.0.0 as supabase-swift 2.47 does, and every refusal where Supabase answers it.
final class NextWaveRealtimeTests: EndToEndTestCase {
    static let settings = ["PIER_NEXTWAVE": "on", "PIER_NEXTWAVE_JWT_SECRET": NextWaveEndToEndTests.secret, "PIER_FETCH": "off"]
    let key = NextWaveEndToEndTests.anonKey()

    func testTheOfficialClientHearsACheckInMadeOnAnotherReplica() throws {
        guard let python = ProcessInfo.processInfo.environment["PIER_PYTHON"] else {
            return XCTFail("PIER_PYTHON must name the tools' bin directory (scripts/test sets it)")
        }
        let first = try startPier(Self.settings)
        let second = try startPier(Self.settings)
        let run = try ChildProcess.run(
            "\(python)/python",
            [ChildProcess.repositoryRoot.appendingPathComponent("Sources/NextWave/Testing/realtime_flows.py").path,
             "http://127.0.0.1:\(first.port)", "http://127.0.0.1:\(second.port)", key])
        XCTAssertEqual(run.status, 0, run.output)
        let steps = run.output.split(separator: "\n").filter { $0.hasPrefix("{\"step\"") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(steps.compactMap { $0["step"] as? String }, ["subscribed", "insert", "delete", "unpublished-refused", "forged-refused", "closed"], run.output)
        for step in steps { if let seconds = step["seconds"] as? Double { XCTAssertLessThan(seconds, 3) } }
        let metrics = try RawClient.request(port: first.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains("pier_realtime_deliveries_total 2"), "two events delivered on the subscriber's replica")
        XCTAssertTrue(metrics.contains(#"pier_realtime_joins_total{result="refused"} 2"#), metrics)

        // The same notice is the other replica's word to drop its counts: a check-in on one is counted on the other.
        let rider = try signUp(first)
        let wave = "8503651_\(Self.utc(3600))_ZSG-7"
        let counts = { () throws -> String in
            try RawClient(port: second.port).request(
                "POST", "/rest/v1/rpc/wave_checkin_counts", headers: rider.headers, body: Array(#"{"wave_ids":["\#(wave)"]}"#.utf8)).bodyText
        }
        XCTAssertEqual(try counts(), "[]", "held by the second replica")
        let written = try RawClient(port: first.port).request(
            "POST", "/rest/v1/wave_checkins", headers: rider.headers,
            body: Array(#"{"wave_id":"\#(wave)","user_id":"\#(rider.id)","departure_at":"\#(Self.utc(3600))","lake_id":"Zürichsee"}"#.utf8))
        XCTAssertEqual(written.status, 201, written.bodyText)
        var seen = ""
        XCTAssertTrue(try eventually(within: 3) {
            seen = try counts()
            return seen.contains(#""count":1"#)
        }, seen)
    }

    func testProtocolTwoAsSupabaseSwiftSpeaksIt() throws {
        let pier = try startPier(Self.settings)
        let rider = try signUp(pier)
        let socket = try PhoenixTestSocket(port: pier.port, query: "apikey=\(key)&vsn=2.0.0")
        // CheckinStore's channel, joined as RealtimeChannelV2 joins it.
        try socket.send(#"["1","1","realtime:wave_checkins_live","phx_join",{"config":{"broadcast":{"ack":false,"self":false},"#
            + #""presence":{"key":"","enabled":false},"postgres_changes":[{"event":"*","schema":"public","table":"wave_checkins"}],"private":false},"#
            + #""access_token":"\#(rider.token)","version":"realtime-swift/2.47.2"}]"#)
        let reply = try socket.read()
        XCTAssertEqual(reply.prefix(4).map { $0 as? String }, ["1", "1", "realtime:wave_checkins_live", "phx_reply"])
        let payload = try XCTUnwrap(reply[4] as? [String: Any])
        XCTAssertEqual(payload["status"] as? String, "ok")
        let binding = try XCTUnwrap(((payload["response"] as? [String: Any])?["postgres_changes"] as? [[String: Any]])?.first)
        let id = try XCTUnwrap(binding["id"] as? Int)
        XCTAssertEqual([binding["event"], binding["schema"], binding["table"]].map { $0 as? String }, ["*", "public", "wave_checkins"])
        let system = try socket.read()
        XCTAssertEqual(system[0] as? String, "1")
        XCTAssertTrue(system[1] is NSNull, "pushes carry no ref")
        XCTAssertEqual(system[3] as? String, "system")
        XCTAssertEqual((system[4] as? [String: Any])?["status"] as? String, "ok", "what the SDKs wait on")

        // A check-in through the REST route reaches the channel with the binding's id, the wave and no rider.
        let wave = "8503671_\(Self.utc(7200))_ZSG-12"
        let written = try RawClient(port: pier.port).request(
            "POST", "/rest/v1/wave_checkins?on_conflict=wave_id,user_id", headers: rider.headers + [("Prefer", "resolution=merge-duplicates")],
            body: Array(#"[{"wave_id":"\#(wave)","user_id":"\#(rider.id)","display_name":"Fede","departure_at":"\#(Self.utc(7200))","lake_id":"Zürichsee"}]"#.utf8))
        XCTAssertEqual(written.status, 201, written.bodyText)
        let event = try socket.read()
        XCTAssertEqual(event.prefix(4).map { $0 as? String }, ["1", nil, "realtime:wave_checkins_live", "postgres_changes"])
        let change = try XCTUnwrap(event[4] as? [String: Any])
        XCTAssertEqual(change["ids"] as? [Int], [id])
        let data = try XCTUnwrap(change["data"] as? [String: Any])
        XCTAssertEqual(data["type"] as? String, "INSERT")
        XCTAssertEqual((data["record"] as? [String: Any])?["wave_id"] as? String, wave)
        XCTAssertEqual(Set((data["record"] as? [String: Any])?.keys.map { $0 } ?? []), ["wave_id", "station_id", "lake_id", "departure_at"])
        XCTAssertEqual((data["columns"] as? [[String: String]])?.map { $0["name"] ?? "" }, ["wave_id", "station_id", "lake_id", "departure_at"])
        XCTAssertTrue(data["errors"] is NSNull)
        let stamp = try XCTUnwrap(data["commit_timestamp"] as? String)
        XCTAssertNotNil(try? Date(stamp, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)), stamp)
        XCTAssertFalse(socket.lastText.contains(rider.id) || socket.lastText.contains("Fede"), socket.lastText)

        // Heartbeat (topic phoenix, no join_ref), then the leave: a reply, then phx_close on the join's ref.
        try socket.send(#"[null,"2","phoenix","heartbeat",{}]"#)
        let heartbeat = try socket.read()
        XCTAssertEqual(heartbeat[1] as? String, "2")
        XCTAssertEqual(heartbeat[3] as? String, "phx_reply")
        XCTAssertEqual((heartbeat[4] as? [String: Any])?["status"] as? String, "ok")
        try socket.send(#"["1","3","realtime:wave_checkins_live","phx_leave",{}]"#)
        XCTAssertEqual(try socket.read().prefix(4).map { $0 as? String }, ["1", "3", "realtime:wave_checkins_live", "phx_reply"])
        XCTAssertEqual(try socket.read().prefix(4).map { $0 as? String }, ["1", "1", "realtime:wave_checkins_live", "phx_close"])
        try socket.send(#"[null,"4","realtime:wave_checkins_live","access_token",{"access_token":"x"}]"#)
        XCTAssertEqual(Self.reason(try socket.read()), "unmatched topic", "a topic left")
    }

    func testRefusalsAreSupabases() throws {
        let pier = try startPier(Self.settings)
        // The upgrade: the project's public key, one of the two serializers.
        let upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(WebSocketTestClient.key)\r\nSec-WebSocket-Version: 13\r\n"
        for (query, status) in [("vsn=1.0.0", 401), ("apikey=\(NextWaveEndToEndTests.anonKey(secret: String(repeating: "x", count: 40)))", 401), ("apikey=\(key)&vsn=3.0.0", 400)] {
            let raw = try RawClient(port: pier.port)
            try raw.send("GET /realtime/v1/websocket?\(query) HTTP/1.1\r\nHost: t\r\n\(upgrade)\r\n")
            XCTAssertEqual(try raw.readResponse().status, status, query)
        }
        let socket = try PhoenixTestSocket(port: pier.port, query: "apikey=\(key)&vsn=1.0.0")
        func join(_ topic: String, _ config: String, token: String? = nil) throws -> [String: Any] {
            let tokenMember = token.map { #","access_token":"\#($0)""# } ?? ""
            try socket.send(#"{"topic":"\#(topic)","event":"phx_join","payload":{"config":\#(config)\#(tokenMember)},"ref":"9","join_ref":"9"}"#)
            return try socket.readObject()
        }
        let table = #"{"postgres_changes":[{"event":"*","schema":"public","table":"wave_checkins"}]}"#
        XCTAssertEqual(Self.reason(try join("realtime:a", #"{"presence":{"enabled":true},"postgres_changes":[]}"#)), "PresenceNotServed: this server serves postgres_changes only")
        XCTAssertEqual(Self.reason(try join("realtime:a", #"{"broadcast":{"self":true},"postgres_changes":[]}"#)), "BroadcastNotServed: this server serves postgres_changes only; the join named none")
        XCTAssertEqual(Self.reason(try join("realtime:a", #"{"private":true,"postgres_changes":[]}"#)), "PrivateChannelNotServed: this server serves public channels only")
        XCTAssertEqual(
            Self.reason(try join("realtime:a", #"{"postgres_changes":[{"event":"*","schema":"public","table":"nextwave_users"}]}"#)),
            "RealtimeDisabledForConfiguration: changes of public.nextwave_users are not published")
        XCTAssertEqual(Self.reason(try join("elsewhere", table)), "unmatched topic")
        let expired = NextWaveEndToEndTests.signed(#"{"role":"authenticated","sub":"6f1c2d3e-0000-4000-8000-000000000001","exp":\#(Int(Date().timeIntervalSince1970) - 30)}"#)
        let refusal = try XCTUnwrap(Self.reason(try join("realtime:a", table, token: expired)))
        XCTAssertTrue(refusal.hasPrefix("InvalidJWTToken: Token has expired 3"), refusal)
        XCTAssertEqual(Self.reason(try join("realtime:a", table, token: "not-a-jwt")), "MalformedJWT: The token provided is not a valid JWT")
        XCTAssertEqual(
            Self.reason(try join("realtime:a", table, token: NextWaveEndToEndTests.anonKey(secret: String(repeating: "y", count: 40)))),
            "JwtSignatureError: Failed to validate JWT signature")
        XCTAssertFalse(socket.lastText.contains(expired), "a token is never echoed")

        // A channel whose refreshed token is forged ends as Supabase ends it: a system error, then phx_close.
        XCTAssertEqual((try join("realtime:b", table)["payload"] as? [String: Any])?["status"] as? String, "ok")
        XCTAssertEqual(try socket.readObject()["event"] as? String, "system")
        try socket.send(#"{"topic":"realtime:b","event":"access_token","payload":{"access_token":"\#(NextWaveEndToEndTests.anonKey(secret: String(repeating: "z", count: 40)))"},"ref":"10"}"#)
        let shutdown = try socket.readObject()
        XCTAssertEqual(shutdown["event"] as? String, "system")
        XCTAssertEqual((shutdown["payload"] as? [String: Any])?["status"] as? String, "error")
        XCTAssertEqual((shutdown["payload"] as? [String: Any])?["message"] as? String, "Failed to validate JWT signature")
        XCTAssertEqual(try socket.readObject()["event"] as? String, "phx_close")

        // Not a Phoenix message: the socket is closed (1003), there is no topic to answer on.
        try socket.client.send(text: "[1,2,3]")
        XCTAssertEqual(try socket.client.readCloseCode(), 1003)

        // A heartbeat flood past the socket's budget (10 a second, 50 at once) is closed with 1008.
        let flood = try PhoenixTestSocket(port: pier.port, query: "apikey=\(key)&vsn=1.0.0")
        for ref in 0..<60 { try flood.send(#"{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"\#(ref)"}"#) }
        var code: UInt16?
        while code == nil, let frame = try? flood.client.read() {
            if frame.opcode == .close { code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) }
        }
        XCTAssertEqual(code, 1008)
    }

    // MARK: Helpers

    struct Rider {
        var id: String
        var token: String
        var headers: [(String, String)]
    }

    /// An anonymous sign-up, as SupabaseManager.ensureSession makes one.
    private func signUp(_ pier: PierProcess) throws -> Rider {
        let answer = try RawClient(port: pier.port).request(
            "POST", "/auth/v1/signup", headers: [("apikey", key), ("Content-Type", "application/json")], body: Array("{}".utf8))
        let session = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any], answer.bodyText)
        let token = try XCTUnwrap(session["access_token"] as? String)
        let id = try XCTUnwrap((session["user"] as? [String: Any])?["id"] as? String)
        return Rider(id: id, token: token, headers: [("apikey", key), ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")])
    }

    static func utc(_ secondsFromNow: TimeInterval) -> String {
        Date().addingTimeInterval(secondsFromNow).formatted(Date.ISO8601FormatStyle())
    }

    /// The `reason` of an error reply, in either serializer.
    static func reason(_ message: Any) -> String? {
        let payload = (message as? [Any])?[4] ?? (message as? [String: Any])?["payload"]
        guard let payload = payload as? [String: Any], payload["status"] as? String == "error" else { return nil }
        return (payload["response"] as? [String: Any])?["reason"] as? String
    }
}

/// A Realtime socket for the tests: text messages in, JSON values out.
final class PhoenixTestSocket {
    let client: WebSocketTestClient
    private(set) var lastText = ""

    init(port: Int, query: String) throws {
        client = try WebSocketTestClient(port: port, path: "/realtime/v1/websocket?\(query)")
    }

    func send(_ text: String) throws { try client.send(text: text) }

    /// The next message of protocol 2.0.0 (an array).
    func read() throws -> [Any] {
        let value = try next()
        return try XCTUnwrap(value as? [Any], lastText)
    }

    /// The next message of protocol 1.0.0 (an object).
    func readObject() throws -> [String: Any] {
        let value = try next()
        return try XCTUnwrap(value as? [String: Any], lastText)
    }

    private func next() throws -> Any {
        let text = try XCTUnwrap(try client.readText(), "a text frame")
        lastText += text
        return try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}

/// The rest of PostgREST's wire a new app version may use, found while reading the SDKs: the total of `Prefer:
/// count=exact` and the one object of `Accept: application/vnd.pgrst.object+json`.
final class NextWaveRestConformanceTests: EndToEndTestCase {
    func testTotalsRangesAndSingleObjects() throws {
        let pier = try startPier(NextWaveRealtimeTests.settings)
        let key = NextWaveEndToEndTests.anonKey()
        let signup = try RawClient(port: pier.port).request(
            "POST", "/auth/v1/signup", headers: [("apikey", key), ("Content-Type", "application/json")], body: Array("{}".utf8))
        let session = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(signup.body)) as? [String: Any])
        let token = try XCTUnwrap(session["access_token"] as? String)
        let id = try XCTUnwrap((session["user"] as? [String: Any])?["id"] as? String)
        let headers = [("apikey", key), ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        func row(_ index: Int) -> String {
            #"{"wave_id":"w\#(index)_\#(NextWaveRealtimeTests.utc(7200))","user_id":"\#(id)","departure_at":"\#(NextWaveRealtimeTests.utc(7200))"}"#
        }
        let three = try RawClient(port: pier.port).request(
            "POST", "/rest/v1/wave_checkins", headers: headers, body: Array("[\(row(1)),\(row(2)),\(row(3))]".utf8))
        XCTAssertEqual(three.status, 201, three.bodyText)
        func read(_ query: String, _ extra: [(String, String)]) throws -> RawResponse {
            try RawClient(port: pier.port).request("GET", "/rest/v1/wave_checkins?select=wave_id&user_id=eq.\(id)\(query)", headers: headers + extra)
        }
        let exact = [("Prefer", "count=exact")]
        let page = try read("&order=wave_id&limit=2", exact)
        XCTAssertEqual(page.status, 206, "fewer than all: partial content")
        XCTAssertEqual(page.header("Content-Range"), "0-1/3")
        let next = try read("&order=wave_id&limit=2&offset=2", exact)
        XCTAssertEqual(next.status, 206, "PostgREST: any answer of fewer than all")
        XCTAssertEqual(next.header("Content-Range"), "2-2/3", "the range starts at the offset")
        XCTAssertEqual(try read("&limit=2&offset=2", []).header("Content-Range"), "2-2/*", "no total unless asked")
        let past = try read("&offset=7", exact)
        XCTAssertEqual(past.status, 416)
        XCTAssertTrue(past.bodyText.contains(#""code":"PGRST103""#), past.bodyText)
        XCTAssertEqual(try read("&wave_id=eq.none", exact).header("Content-Range"), "*/0")

        let object = [("Accept", "application/vnd.pgrst.object+json")]
        let one = try read("&order=wave_id&limit=1", object)
        XCTAssertEqual(one.status, 200, one.bodyText)
        XCTAssertEqual(one.header("Content-Type"), "application/vnd.pgrst.object+json; charset=utf-8")
        XCTAssertTrue(one.bodyText.hasPrefix(#"{"wave_id":"w1_"#), one.bodyText)
        let many = try read("", object)
        XCTAssertEqual(many.status, 406)
        XCTAssertEqual(
            many.bodyText,
            #"{"code":"PGRST116","details":"The result contains 3 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"}"#)
        // A write of two rows asking for one object is refused and undone.
        let two = try RawClient(port: pier.port).request(
            "POST", "/rest/v1/wave_checkins", headers: headers + object + [("Prefer", "return=representation")], body: Array("[\(row(4)),\(row(5))]".utf8))
        XCTAssertEqual(two.status, 406, two.bodyText)
        XCTAssertEqual(try read("", exact).header("Content-Range"), "0-2/3", "nothing of the refused write is stored")
    }
}
