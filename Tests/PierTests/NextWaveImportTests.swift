import Crypto
import Foundation
import HTTPTesting
import Parsing
import UpstreamTesting
import XCTest

/// Moving a Next Wave Supabase project to Pier: a project built from the spec's schema
/// (``SupabaseProject``) is exported with the operators' own script
/// (`deploy/nextwave/supabase-export.sql`, run by psql as docs/operations/community.md says), imported by
/// `pier import nextwave-supabase`, and then an install of the app goes on as before: its refresh token, its access
/// token issued by Supabase's auth server, its history, rank, badges and device.
final class NextWaveImportTests: EndToEndTestCase {
    static let secret = NextWaveEndToEndTests.secret
    static let lisa = "11111111-1111-4111-8111-111111111111"
    static let lisaSession = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"

    private var export: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        export = FileManager.default.temporaryDirectory.appendingPathComponent("pier-supabase-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let export { try? FileManager.default.removeItem(at: export) }
        super.tearDown()
    }

    /// The project in the test's database (its own schemas: `auth`, the app's tables in `public`), exported by psql.
    private func exportProject() throws {
        // psql of the cluster scripts/test started (PIER_PG_BINDIR, as TestCluster reads it).
        guard let bin = ProcessInfo.processInfo.environment["PIER_PG_BINDIR"] else { return XCTFail("PIER_PG_BINDIR must be set (scripts/test sets it)") }
        let psql = bin + "/psql"
        try database.connection().executeScript(SupabaseProject.sql)
        let script = ChildProcess.repositoryRoot.appendingPathComponent("deploy/nextwave/supabase-export.sql").path
        // The operator's command, in the export's directory.
        let run = try ChildProcess.run(
            "/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" \"$3\" -X -v ON_ERROR_STOP=1 -f \"$4\"", "sh", export.path, psql, database.childURL, script])
        XCTAssertEqual(run.status, 0, run.output)
    }

    private func importExport() throws -> (status: Int32, output: String) {
        try ChildProcess.run(PierProcess.binary.path, ["import", "nextwave-supabase", export.path], environment: [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory, "LOG_LEVEL": "error",
        ])
    }

    /// An access token as Supabase's auth server issued it before the move (its claims, the project's secret).
    private func supabaseAccessToken() -> String {
        func encoded(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
        let now = Int(Date().timeIntervalSince1970)
        let claims = #"{"iss":"https://nextwaveapp.db.example/auth/v1","sub":"\#(Self.lisa)","aud":"authenticated","exp":\#(now + 3000),"iat":\#(now - 600),"email":"","phone":"","app_metadata":{},"user_metadata":{},"role":"authenticated","aal":"aal1","amr":[{"method":"anonymous","timestamp":\#(now - 600)}],"session_id":"\#(Self.lisaSession)","is_anonymous":true}"#
        let input = encoded(#"{"alg":"HS256","kid":"abc","typ":"JWT"}"#) + "." + encoded(claims)
        let signature = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(Self.secret.utf8)))
        return input + "." + Base64URL.encode(Array(signature))
    }

    private func call(_ pier: PierProcess, _ method: String, _ path: String, token: String? = nil, body: String? = nil) throws -> (status: Int, json: Any?) {
        let key = NextWaveEndToEndTests.anonKey()
        let response = try RawClient(port: pier.port).request(
            method, path, headers: [("apikey", key), ("Authorization", "Bearer \(token ?? key)"), ("Content-Type", "application/json")],
            body: Array((body ?? "").utf8))
        return (response.status, try? JSONSerialization.jsonObject(with: Data(response.body)))
    }

    func testAnExportedProjectMovesOverAndItsInstallsGoOn() throws {
        try exportProject()
        let imported = try importExport()
        XCTAssertEqual(imported.status, 0, imported.output)
        XCTAssertTrue(
            imported.output.contains("imported 3 users (2 sessions, 2 refresh tokens), 2 check-ins, 15 ridden waves, 2 leaderboard names, 2 badges (as notified), 2 device tokens, 1 verified sessions"),
            imported.output)
        XCTAssertTrue(imported.output.contains("1 names were made what Pier keeps"), imported.output)
        XCTAssertTrue(imported.output.contains("1 device tokens held by several users are kept under the newest"), imported.output)
        // The operator's output names no user, name or token.
        XCTAssertFalse(imported.output.contains(Self.lisa) || imported.output.contains("Lisa") || imported.output.contains("l1sacurrent1"), imported.output)

        let connection = try database.connection()
        let name = try connection.query("SELECT display_name FROM nextwave_checkins WHERE user_id = $1::uuid", [Self.lisa])[0].decode(String.self, "display_name")
        XCTAssertEqual(name, "Lisa from the lake with a name far longe")
        let device = try connection.query(
            "SELECT n.user_id::text AS owner, d.token, d.environment, d.seen_at > now() - interval '1 hour' AS seen FROM nextwave_devices n JOIN push_devices d ON d.id = n.device_id WHERE d.token LIKE 'ab12%'")
        XCTAssertEqual(device.count, 1)
        XCTAssertEqual(try device[0].decode(String.self, "owner"), Self.lisa, "the newest registration keeps the phone")
        XCTAssertEqual(try device[0].decode(String.self, "environment"), "production")
        // Seen at the import: Supabase's updated_at is the first registration, and the push engine deletes devices
        // unseen for 90 days — a phone registered in June must not go at the next prune.
        XCTAssertTrue(try device[0].decode(Bool.self, "seen"))

        // Imported twice: refused whole, nothing doubled.
        let again = try importExport()
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.output.contains("users.csv line 2: this user is in Pier already"), again.output)
        XCTAssertTrue(again.output.contains("nothing imported (3 rows refused)"), again.output)
        XCTAssertEqual(try connection.query("SELECT count(*)::int AS n FROM nextwave_users")[0].decode(Int.self, "n"), 3)

        let pier = try startPier(["PIER_NEXTWAVE": "on", "PIER_NEXTWAVE_JWT_SECRET": Self.secret, "PIER_FETCH": "off"])
        // The access token Supabase's auth server issued still reads the rider's own rows.
        let access = supabaseAccessToken()
        let mine = try call(pier, "GET", "/rest/v1/wave_checkins?select=wave_id,display_name&user_id=eq.\(Self.lisa)", token: access)
        XCTAssertEqual(mine.status, 200)
        XCTAssertEqual((mine.json as? [[String: Any]])?.first?["wave_id"] as? String, "8503674_departed_ZSG-12")
        let user = try call(pier, "GET", "/auth/v1/user", token: access)
        XCTAssertEqual(user.status, 200)
        XCTAssertEqual((user.json as? [String: Any])?["id"] as? String, Self.lisa)
        // The refresh token the app holds rotates as before; the one it used before the move is not one.
        let refreshed = try call(pier, "POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"l1sacurrent1"}"#)
        XCTAssertEqual(refreshed.status, 200)
        let session = try XCTUnwrap(refreshed.json as? [String: Any])
        XCTAssertEqual((session["user"] as? [String: Any])?["id"] as? String, Self.lisa)
        XCTAssertNotEqual(session["refresh_token"] as? String, "l1sacurrent1")
        XCTAssertEqual(try call(pier, "POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"l1sa0ldt0ken"}"#).status, 400)
        let token = try XCTUnwrap(session["access_token"] as? String)
        // History and rank: Lisa's 12 waves and her verified session put her first, Marco's 3 second (the others' rows,
        // then the caller's; the app sorts by rank).
        let board = try call(pier, "POST", "/rest/v1/rpc/wave_leaderboard", token: token, body: #"{"p_station_id":null,"p_limit":50}"#)
        XCTAssertEqual(board.status, 200)
        let rows = try XCTUnwrap(board.json as? [[String: Any]])
        let ranked = rows.map { "\($0["rank"] as? Int ?? 0) \($0["display_name"] as? String ?? "") \($0["total_waves"] as? Int ?? 0) \($0["is_me"] as? Bool ?? false)" }
        XCTAssertEqual(ranked, ["2 Marco 3 false", "1 Lisa 13 true"])
        let verified = try call(pier, "POST", "/rest/v1/rpc/user_verified_stats", token: token, body: "{}")
        XCTAssertEqual(verified.status, 200, "\(verified)")
        _ = pier.stop()

        // The nightly archive takes the departed check-in into her history; badges pushed before the move stay as they were.
        let archive = try ChildProcess.run(PierProcess.binary.path, ["nextwave", "archive"], environment: [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory, "LOG_LEVEL": "error",
        ])
        XCTAssertEqual(archive.status, 0, archive.output)
        XCTAssertTrue(archive.output.contains("archived 1 rides of 1 riders"), archive.output)
        let badges = try connection.query(
            "SELECT badge_id, earned_at = '2026-07-13 01:00:00+00' AS before FROM nextwave_badges WHERE user_id = $1::uuid ORDER BY badge_id", [Self.lisa])
        let first = try XCTUnwrap(badges.first { try $0.decode(String.self, "badge_id") == "first_wave" })
        XCTAssertTrue(try first.decode(Bool.self, "before"), "an imported badge is not awarded again")
        XCTAssertTrue(try badges.contains { try $0.decode(String.self, "badge_id") == "regular_10" && !$0.decode(Bool.self, "before") }, "a badge new with the archive is")
    }

    func testABadExportIsRefusedWithItsLinesAndNothingIsImported() throws {
        try exportProject()
        // A check-in of a user the export does not hold, a token that is no APNs token, a value that is no timestamp.
        let checkins = export.appendingPathComponent("wave_checkins.csv")
        try (String(contentsOf: checkins, encoding: .utf8)
            + "9a6c3e9e-0000-4000-8000-000000000001,w,44444444-4444-4444-8444-444444444444,,2026-07-01 16:00:00+00,2026-07-01 15:00:00+00,,,f,f\n")
            .write(to: checkins, atomically: true, encoding: .utf8)
        let devices = export.appendingPathComponent("device_tokens.csv")
        try (String(contentsOf: devices, encoding: .utf8) + "\(Self.lisa),not-a-token,ios,2026-07-01 16:00:00+00\n").write(to: devices, atomically: true, encoding: .utf8)
        let refused = try importExport()
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.output.contains("wave_checkins.csv line 4: user_id is not in users.csv"), refused.output)
        XCTAssertTrue(refused.output.contains("device_tokens.csv line 5: user_id is empty, or token is not an APNs device token"), refused.output)
        XCTAssertTrue(refused.output.contains("nothing imported (2 rows refused)"), refused.output)
        let connection = try database.connection()
        XCTAssertEqual(try connection.query("SELECT (SELECT count(*) FROM nextwave_users) + (SELECT count(*) FROM push_devices) AS n")[0].decode(Int.self, "n"), 0)

        try (String(contentsOf: devices, encoding: .utf8).replacingOccurrences(of: "not-a-token,ios,2026-07-01 16:00:00+00", with: "00aa00aa00aa00aa,ios,yesterday-ish"))
            .write(to: devices, atomically: true, encoding: .utf8)
        let unparsed = try importExport()
        XCTAssertNotEqual(unparsed.status, 0)
        XCTAssertTrue(unparsed.output.contains("device_tokens.csv line 5: invalid input syntax for type timestamp with time zone"), unparsed.output)

        try FileManager.default.removeItem(at: export.appendingPathComponent("user_badges.csv"))
        try "user_id,token\n".write(to: devices, atomically: true, encoding: .utf8)
        let incomplete = try importExport()
        XCTAssertNotEqual(incomplete.status, 0)
        XCTAssertTrue(incomplete.output.contains("user_badges.csv is missing"), incomplete.output)
        XCTAssertTrue(incomplete.output.contains("device_tokens.csv: the first line must be the header user_id,token,platform,updated_at"), incomplete.output)
        XCTAssertEqual(try connection.query("SELECT count(*)::int AS n FROM nextwave_users")[0].decode(Int.self, "n"), 0)
    }
}
