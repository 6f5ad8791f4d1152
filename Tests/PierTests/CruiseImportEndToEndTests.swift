import DatabaseTesting
import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// `POST /v1/cruise-import` through the real binary against Gemini's double: the app's shape, the key only in its
/// header, bad input costing no call, every answer of Gemini's said honestly, and the booking kept nowhere.
final class CruiseImportEndToEndTests: EndToEndTestCase {
    static let path = "/v1/cruise-import"
    private var booking: String { String(decoding: (try? Fixtures.bytes("gemini", "booking-river-cruise.txt")) ?? [], as: UTF8.self) }

    private func body(_ text: String) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: ["text": text])) ?? Data())
    }

    private func importing(_ pier: PierProcess, _ body: [UInt8], from client: String = "198.51.100.7", headers: [(String, String)] = []) throws -> RawResponse {
        try RawClient(port: pier.port).request(
            "POST", Self.path, headers: [("Content-Type", "application/json"), ("X-Forwarded-For", client)] + headers, body: body)
    }

    private func error(_ response: RawResponse) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["error"] as? String
    }

    private func gemini(_ extra: [String: String] = [:]) -> [String: String] {
        [
            "PIER_FETCH": "off", "PIER_GEMINI_API_KEY": "double-gemini-key", "PIER_GEMINI_CLIENT_SHARE": "1", "PIER_GEMINI_BURST": "100",
            "PIER_GEMINI_REQUESTS_PER_MINUTE": "6000", "PIER_DAILY_SHARE_SUBSCRIBER": "0.9", "PIER_DAILY_SHARE_NETWORK": "0.9", "PIER_DAILY_RESERVE": "0",
        ].merging(extra) { $1 }
    }

    func testWithoutAKeyTheImportSaysSoAndBadInputIsStillNamed() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        let refused = try importing(pier, body(booking))
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(error(refused), "the cruise import is not configured on this server (no Gemini key)")
        XCTAssertEqual(refused.header("Retry-After"), "3600")
        XCTAssertEqual(try importing(pier, Array("{}".utf8)).status, 400)
        let health = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try RawClient.request(port: pier.port, "/health").body)) as? [String: Any])
        XCTAssertEqual(((health["sources"] as? [String: Any])?["cruise-import"] as? [String: Any])?["status"] as? String, "disabled")
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_cruise_imports_total{outcome="not_configured"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_cruise_imports_total{outcome="bad_request"} 1"#), metrics)
        XCTAssertEqual(upstream.requests(.gemini).count, 0)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testABookingIsTheAppsCruiseWithItsPortsPlacedAndNothingIsKept() throws {
        let captures = FileManager.default.temporaryDirectory.appendingPathComponent("pier-cruise-captures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: captures) }
        let pier = try startPier(gemini([
            "LOG_LEVEL": "debug", "PIER_SAVE_SUSPECT_DIR": captures.path, "PIER_GEOAPIFY_KEY": "geoapify-key", "PIER_GEOAPIFY_CLIENT_SHARE": "1",
        ]))
        let response = try importing(pier, body(booking))
        XCTAssertEqual(response.status, 200, response.bodyText)
        XCTAssertEqual(response.header("Cache-Control"), "no-store")
        let cruise = try JSONDecoder().decode(AppCruise.self, from: Data(response.body))
        XCTAssertEqual(cruise.ship, "MS Donauperle")
        XCTAssertEqual(cruise.bookingNumber, "BF-2027-0815")
        XCTAssertEqual(cruise.ports?.map(\.name), ["Passau", "Regensburg", "Kelheim", "Nürnberg"])
        // Every member present; Nürnberg placed by the geocoder (the double knows no other town), the rest null.
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        XCTAssertEqual(object.count, 9)
        let ports = try XCTUnwrap(object["ports"] as? [[String: Any]])
        XCTAssertTrue(ports[0]["arrivalDate"] is NSNull)
        XCTAssertTrue(ports[0]["latitude"] is NSNull)
        XCTAssertEqual(try XCTUnwrap(ports[3]["latitude"] as? Double), 49.45, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(ports[3]["longitude"] as? Double), 11.08, accuracy: 0.05)
        XCTAssertEqual(upstream.requests(.geoapify).count, 4, "each port asked once")
        // The key only in its header; Pier's instructions, the schema and the text in the body.
        let asked = try XCTUnwrap(upstream.requests(.gemini).first)
        XCTAssertEqual(asked.method, "POST")
        XCTAssertEqual(asked.path, "/v1beta/models/gemini-3.5-flash-lite:generateContent")
        XCTAssertTrue(asked.query.isEmpty)
        XCTAssertEqual(asked.headers.first { $0.key.lowercased() == "x-goog-api-key" }?.value, "double-gemini-key")
        let sent = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(asked.body)) as? [String: Any])
        let config = try XCTUnwrap(sent["generationConfig"] as? [String: Any])
        XCTAssertEqual(config["responseMimeType"] as? String, "application/json")
        XCTAssertNotNil(config["responseSchema"] as? [String: Any])
        XCTAssertEqual(config["maxOutputTokens"] as? Int, 8192)
        XCTAssertTrue(String(decoding: asked.body, as: UTF8.self).contains("BF-2027-0815"))
        // A second import of the same ports asks the geocoder nothing more.
        XCTAssertEqual(try importing(pier, body(booking)).status, 200)
        XCTAssertEqual(upstream.requests(.geoapify).count, 4)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_cruise_imports_total{outcome="imported"} 2"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_gemini_tokens_total{kind="prompt"} 2620"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_upstream_requests_total{upstream="gemini"} 2"#), metrics)
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertEqual(pier.stop(), 0)
        // Nothing of the booking (its number, the traveller's name) or the key anywhere: logs at debug, captures, /health,
        // /metrics, any table.
        let bin = ProcessInfo.processInfo.environment["PIER_PG_BINDIR"] ?? "/usr/lib/postgresql/15/bin"
        let dump = try ChildProcess.run(bin + "/pg_dump", ["--data-only", database.childURL])
        XCTAssertEqual(dump.status, 0, dump.output)
        let captured = (try? FileManager.default.subpathsOfDirectory(atPath: captures.path)) ?? []
        let capturedText = try captured.map { String(decoding: try Data(contentsOf: captures.appendingPathComponent($0)), as: UTF8.self) }
        for secret in ["BF-2027-0815", "Muster", "Donauperle", "double-gemini-key"] {
            for (name, text) in [("logs", pier.standardOutput()), ("health", health), ("metrics", metrics), ("database", dump.output)] + capturedText.map({ ("capture", $0) }) {
                XCTAssertFalse(text.contains(secret), "\(secret) in \(name)")
            }
        }
    }

    func testBadInputIsRefusedBeforeAnyCallAndCharactersAreCountedNotBytes() throws {
        let pier = try startPier(gemini())
        let refusals: [([UInt8], String)] = [
            (Array("not json".utf8), #"the body is not JSON: send {"text": "…"}"#), (Array("[1]".utf8), #"the body is not an object: send {"text": "…"}"#),
            (Array("{}".utf8), "text is required"), (Array(#"{"text": 7}"#.utf8), "text must be a string"), (body(" \n\t "), "text is empty"),
            (body(String(repeating: "ä", count: 20_001)), "text is longer than 20000 characters"),
        ]
        for (sent, said) in refusals {
            let response = try importing(pier, sent)
            XCTAssertEqual(response.status, 400, response.bodyText)
            XCTAssertEqual(error(response), said)
        }
        XCTAssertEqual(upstream.requests(.gemini).count, 0, "no call for bad input")
        // 20,000 umlauts are 40,000 bytes and within the bound.
        XCTAssertEqual(try importing(pier, body(String(repeating: "ä", count: 20_000))).status, 200)
        XCTAssertEqual(upstream.requests(.gemini).count, 1)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testGeminisAnswersAndErrorsAreSaidHonestly() throws {
        let pier = try startPier(gemini())
        let cases: [(FixtureUpstream.Mode, Int, String)] = [
            (.variant("fenced"), 502, "Gemini's answer is not a valid cruise: the model's answer is not JSON"),
            (.variant("impossible-dates"), 502, "Gemini's answer is not a valid cruise: startDate is not a date (YYYY-MM-DD): 2027-02-30"),
            (.variant("max-tokens"), 502, "Gemini's answer is not a valid cruise: the model stopped before the end of its answer (stopped: MAX_TOKENS)"),
            (.variant("no-cruise"), 422, "no cruise booking was found in the text"),
            (.variant("blocked"), 422, "Gemini declined to read this text (prompt blocked: SAFETY)"),
            (.status(503), 503, "Gemini failed (HTTP 503 UNAVAILABLE)"),
            (.garbage, 502, "Gemini's answer is not a valid cruise: Gemini sent an answer Pier could not read"),
        ]
        for (mode, status, said) in cases {
            upstream.set(.gemini, mode)
            let response = try importing(pier, body(booking))
            XCTAssertEqual(response.status, status, "\(mode): \(response.bodyText)")
            XCTAssertTrue(error(response)?.hasPrefix(said) == true, "\(mode): \(response.bodyText)")
            if status == 503 { XCTAssertEqual(response.header("Retry-After"), "30") }
        }
        XCTAssertEqual(upstream.requests(.gemini).count, cases.count, "none of them paused calls")
        // Google's 429 pauses calls for its RetryInfo delay: the next import is refused without one.
        upstream.set(.gemini, .status(429))
        for _ in 0..<2 {
            let limited = try importing(pier, body(booking))
            XCTAssertEqual(limited.status, 503, limited.bodyText)
            XCTAssertLessThanOrEqual(Int(limited.header("Retry-After") ?? "") ?? 0, 37)
            XCTAssertGreaterThanOrEqual(Int(limited.header("Retry-After") ?? "") ?? 0, 36)
        }
        XCTAssertEqual(upstream.requests(.gemini).count, cases.count + 1)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        for (outcome, count) in [("invalid_answer", 4), ("no_cruise", 1), ("declined", 1), ("unavailable", 3)] {
            XCTAssertTrue(metrics.contains(#"pier_cruise_imports_total{outcome="\#(outcome)"} \#(count)"#), "\(outcome): \(metrics)")
        }
        XCTAssertTrue(metrics.contains(#"pier_upstream_refusals_total{upstream="gemini",reason="paused"} 1"#), metrics)
        let health = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try RawClient.request(port: pier.port, "/health").body)) as? [String: Any])
        let source = try XCTUnwrap((health["sources"] as? [String: Any])?["cruise-import"] as? [String: Any])
        XCTAssertEqual(source["last_error"] as? String, "HTTP 429 RESOURCE_EXHAUSTED (pausing 37 s)")
        XCTAssertGreaterThan(source["paused_s"] as? Int ?? 0, 30)
        XCTAssertEqual(pier.stop(), 0)
        // The log says what failed, never the model's value (it came from the booking).
        XCTAssertTrue(pier.standardOutput().contains("startDate is not a date (YYYY-MM-DD)"), pier.standardOutput())
        XCTAssertFalse(pier.standardOutput().contains("2027-02-30"), pier.standardOutput())
    }

    /// Google's error message may quote the booking: at any log level only its status and reason are logged.
    func testGeminisErrorMessageIsNeverLogged() throws {
        let pier = try startPier(gemini(["LOG_LEVEL": "debug"]))
        upstream.set(.gemini, .variant("invalid-argument"))
        let response = try importing(pier, body(booking))
        XCTAssertEqual(response.status, 502, response.bodyText)
        XCTAssertEqual(error(response), "Gemini's answer is not a valid cruise: Gemini refused the request (INVALID_ARGUMENT)")
        XCTAssertEqual(pier.stop(), 0)
        let log = pier.standardOutput()
        XCTAssertTrue(log.contains("HTTP 400 INVALID_ARGUMENT"), log)
        for quoted in ["BF-2027-0815", "Muster", "Donauperle", "Invalid value"] {
            XCTAssertFalse(log.contains(quoted), "\(quoted) in the log")
        }
    }

    func testAnOperatorsMistakeIsLoggedForThemAndAnsweredAsUnavailable() throws {
        for (mode, key, advice) in [
            (FixtureUpstream.Mode.variant("failed-precondition"), "double-gemini-key", "needs billing"),
            (.normal, "a-wrong-key", "check PIER_GEMINI_API_KEY"), (.status(404), "double-gemini-key", "PIER_GEMINI_MODEL"),
        ] {
            upstream.set(.gemini, mode)
            let pier = try startPier(gemini(["PIER_GEMINI_API_KEY": key, "LOG_LEVEL": "info"]))
            let response = try importing(pier, body(booking))
            XCTAssertEqual(response.status, 503, response.bodyText)
            XCTAssertEqual(response.header("Retry-After"), "600")
            XCTAssertEqual(try importing(pier, body(booking)).status, 503)
            XCTAssertEqual(pier.stop(), 0)
            XCTAssertTrue(pier.standardOutput().contains(advice), pier.standardOutput())
            XCTAssertFalse(pier.standardOutput().contains(key), "the key is never logged")
        }
        XCTAssertEqual(upstream.requests(.gemini).count, 3, "one call each: the refusal paused the rest")
    }

    func testATimeoutIsUnavailableAndEachClientSpendsItsOwnShareOfTheDay() throws {
        let pier = try startPier(gemini(["PIER_GEMINI_REQUESTS_PER_DAY": "20", "PIER_DAILY_SHARE_SUBSCRIBER": "0.05", "PIER_DAILY_SHARE_NETWORK": "0.5"]))
        upstream.set(.gemini, .hang)
        let slow = try importing(pier, body(booking), from: "198.51.100.20")
        XCTAssertEqual(slow.status, 503, slow.bodyText)
        XCTAssertEqual(error(slow), "Gemini did not answer in time")
        upstream.set(.gemini, .normal)
        // One import a day for an address (5 % of 20); the next is this client's doing (429), another address goes on.
        XCTAssertEqual(try importing(pier, body(booking), from: "198.51.100.7").status, 200)
        let again = try importing(pier, body(booking), from: "198.51.100.7")
        XCTAssertEqual(again.status, 429, again.bodyText)
        XCTAssertNotNil(again.header("Retry-After"))
        XCTAssertEqual(try importing(pier, body(booking), from: "203.0.113.9").status, 200)
        XCTAssertEqual(upstream.requests(.gemini).count, 3)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_upstream_quota_used{upstream="gemini"} 3"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_cruise_imports_total{outcome="refused"} 1"#), metrics)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testTheServersDaySpentIsEveryonesAndSaidAsSuch() throws {
        let pier = try startPier(gemini(["PIER_GEMINI_REQUESTS_PER_DAY": "1"]))
        XCTAssertEqual(try importing(pier, body(booking), from: "198.51.100.7").status, 200)
        let spent = try importing(pier, body(booking), from: "203.0.113.9")
        XCTAssertEqual(spent.status, 503, spent.bodyText)
        XCTAssertEqual(error(spent), "Gemini's daily quota for this server is spent (it resets at midnight Pacific time, as Google's day does)")
        XCTAssertGreaterThan(Int(spent.header("Retry-After") ?? "") ?? 0, 0)
        XCTAssertEqual(upstream.requests(.gemini).count, 1)
        XCTAssertEqual(pier.stop(), 0)
    }
}
