import Crypto
import Foundation
import HTTPTesting
import Parsing
import XCTest

/// Next Wave's community through the real binary, driven by an independent client: the official Supabase Python client
/// (`Sources/NextWave/Testing/supabase_flows.py`) runs each of the app's flows — sign-up, check-in and check-out, the
/// counts, names, device tokens, verified sessions, the lake levels, the nightly archive, statistics and leaderboard,
/// the session's refresh and the user's own deletion.
final class NextWaveEndToEndTests: EndToEndTestCase {
    static let secret = "super-secret-jwt-token-with-at-least-32-characters-long"

    /// The public key the apps ship: HS256 with `role` `anon`, signed with the project's secret (as Supabase made it).
    static func anonKey(secret: String = secret) -> String {
        signed(#"{"iss":"supabase","role":"anon","iat":1773187200,"exp":4929667200}"#, secret: secret)
    }

    /// `claims` (JSON) as an HS256 token signed with `secret`.
    static func signed(_ claims: String, secret: String = secret) -> String {
        func encoded(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
        let input = encoded(#"{"alg":"HS256","typ":"JWT"}"#) + "." + encoded(claims)
        let signature = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return input + "." + Base64URL.encode(Array(signature))
    }

    func testTheAppsFlowsWorkThroughTheOfficialSupabaseClient() throws {
        guard let python = ProcessInfo.processInfo.environment["PIER_PYTHON"] else {
            return XCTFail("PIER_PYTHON must name the tools' bin directory (scripts/test sets it)")
        }
        // Pier's own level history for the chart (MeteoNews' name).
        let connection = try database.connection()
        _ = try connection.execute(
            "INSERT INTO lake_levels (lake, day, level_m, read_at, source) SELECT 'Zürichsee', current_date - d, 405.9 + d / 100.0, now(), 'scraped' FROM generate_series(0, 4) d")
        let pier = try startPier(["PIER_NEXTWAVE": "on", "PIER_NEXTWAVE_JWT_SECRET": Self.secret, "PIER_FETCH": "off"])
        let run = try ChildProcess.run(
            "\(python)/python",
            [ChildProcess.repositoryRoot.appendingPathComponent("Sources/NextWave/Testing/supabase_flows.py").path, "http://127.0.0.1:\(pier.port)",
             Self.anonKey(), PierProcess.binary.path],
            environment: ["DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory])
        XCTAssertEqual(run.status, 0, run.output)
        let steps = run.output.split(separator: "\n").filter { $0.hasPrefix("{\"step\"") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.compactMap { $0["step"] as? String }
        XCTAssertEqual(
            steps, ["signup", "checkin", "counts", "my-checkins", "refusals", "checkout", "device-token", "verified", "lake-levels", "archive", "stats", "refresh", "delete-user"],
            run.output)
        // Public surfaces show states: no user id, name or token in /health or the log.
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""nextwave":{"state":"on""#), health)
        _ = pier.stop()
        let log = pier.standardOutput()
        XCTAssertFalse(log.contains("Fede") || log.contains(Self.anonKey()), "the log shows no name, no key")
    }

    func testOffNoneOfItIsServed() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        XCTAssertEqual(try RawClient.request(port: pier.port, "/rest/v1/wave_checkins?select=wave_id").status, 404)
        XCTAssertEqual(try RawClient(port: pier.port).request("POST", "/auth/v1/signup", body: Array("{}".utf8)).status, 404)
        XCTAssertTrue(try RawClient.request(port: pier.port, "/health").bodyText.contains(#""nextwave":{"state":"disabled"}"#))
    }
}
