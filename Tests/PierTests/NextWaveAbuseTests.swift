import Foundation
import HTTPTesting
import XCTest

/// Next Wave's community tried as an attacker would, through the real binary (issue 53): `scripts/lib/community_attacks.py`
/// plays each attack at a size fit for CI (`BENCH_SECTIONS=community-abuse scripts/bench` plays them full size) and
/// fails when a bound did not hold; what the attacks left in PostgreSQL is checked here.
final class NextWaveAbuseTests: EndToEndTestCase {
    func testEveryAttackMeetsItsBound() throws {
        let (_, apns) = try apnsStandIn()
        // Writes are generous here: the bounds on what a rider holds are what is tried, not the write share.
        let pier = try startPier(apns.merging([
            "PIER_NEXTWAVE": "on", "PIER_NEXTWAVE_JWT_SECRET": NextWaveEndToEndTests.secret, "PIER_FETCH": "off",
            "PIER_NEXTWAVE_WRITES_REQUESTS_PER_MINUTE": "1000000", "PIER_NEXTWAVE_WRITES_BURST": "100000", "PIER_NEXTWAVE_WRITES_CLIENT_SHARE": "1",
        ]) { $1 })
        let run = try ChildProcess.run(
            "/usr/bin/env",
            ["python3", ChildProcess.repositoryRoot.appendingPathComponent("scripts/lib/community_attacks.py").path, "http://127.0.0.1:\(pier.port)",
             NextWaveEndToEndTests.anonKey(), "\(pier.process.processIdentifier)", "--pier", PierProcess.binary.path, "--push", "--check"],
            environment: ["DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory])
        XCTAssertEqual(run.status, 0, run.output)
        let attacks = run.output.split(separator: "\n").filter { $0.hasPrefix("{\"attack\"") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(
            attacks.compactMap { $0["attack"] as? String },
            ["counts-padding", "departed-checkins", "strange-checkins", "verified-flood", "reads-flood", "signups", "token-across-apps"], run.output)

        let connection = try database.connection()
        func count(_ sql: String) throws -> Int { try connection.query(sql)[0].decode(Int.self, "n") }
        XCTAssertLessThanOrEqual(
            try count("SELECT max(n)::int AS n FROM (SELECT count(*) AS n FROM nextwave_history GROUP BY user_id) s"), 100,
            "at most a rider's capped check-ins became their rides")
        XCTAssertEqual(try count("SELECT count(*)::int AS n FROM nextwave_history WHERE wave_id LIKE 's%' AND station_id LIKE chr(31) || '%'"), 99,
            "the strange check-ins were archived whole")
        XCTAssertEqual(try count("SELECT max(n)::int AS n FROM (SELECT count(*) AS n FROM nextwave_verified_sessions GROUP BY user_id) s"), 10)
        XCTAssertGreaterThan(try pier.metric("pier_nextwave_reads_refused_total") ?? 0, 0)
        XCTAssertGreaterThan(try pier.metric(#"pier_nextwave_bounds_refused_total{bound="verified_per_day"}"#) ?? 0, 0)

        // The sign-ups left nothing: a month later the nightly job (here `pier nextwave archive`) deletes them.
        let users = try count("SELECT count(*)::int AS n FROM nextwave_users")
        _ = try connection.execute("UPDATE nextwave_users SET created_at = now() - interval '31 days', last_sign_in_at = now() - interval '31 days'")
        _ = try connection.execute("UPDATE nextwave_sessions SET refreshed_at = now() - interval '31 days'")
        let archive = try ChildProcess.run(
            PierProcess.binary.path, ["nextwave", "archive"],
            environment: ["DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory])
        XCTAssertEqual(archive.status, 0, archive.output)
        let left = try count("SELECT count(*)::int AS n FROM nextwave_users")
        XCTAssertGreaterThanOrEqual(users - left, 30, "the idle sign-ups went")
        XCTAssertTrue(archive.output.contains("deleted \(users - left) idle users"), archive.output)
        XCTAssertGreaterThan(left, 0, "riders with rides, check-ins, devices or verified sessions stay")
        _ = pier.stop()
        XCTAssertFalse(pier.standardOutput().contains(NextWaveEndToEndTests.anonKey()), "the log shows no key")
    }
}
