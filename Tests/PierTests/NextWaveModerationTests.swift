import Foundation
import HTTPTesting
import XCTest

/// What an operator does to a rider, through the real binary beside a running replica (docs/operations/community.md):
/// `pier nextwave names` finds a name, `clear-name` takes it off the leaderboard and the check-in counts, `delete-user`
/// deletes a rider — and the running replica stops showing either without a restart.
final class NextWaveModerationTests: EndToEndTestCase {
    private let key = NextWaveEndToEndTests.anonKey()

    private func signUp(_ pier: PierProcess) throws -> (id: String, headers: [(String, String)]) {
        let answer = try RawClient(port: pier.port).request(
            "POST", "/auth/v1/signup", headers: [("apikey", key), ("Content-Type", "application/json")], body: Array("{}".utf8))
        let session = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any], answer.bodyText)
        let token = try XCTUnwrap(session["access_token"] as? String)
        let id = try XCTUnwrap((session["user"] as? [String: Any])?["id"] as? String)
        return (id, [("apikey", key), ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")])
    }

    private func pier(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try ChildProcess.run(
            PierProcess.binary.path, ["nextwave"] + arguments,
            environment: ["DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory])
    }

    func testAnOperatorFindsClearsAndDeletesAndTheReplicaFollows() throws {
        let server = try startPier(["PIER_NEXTWAVE": "on", "PIER_NEXTWAVE_JWT_SECRET": NextWaveEndToEndTests.secret, "PIER_FETCH": "off"])
        let rude = try signUp(server)
        let other = try signUp(server)
        let departure = Date().addingTimeInterval(3600).formatted(Date.ISO8601FormatStyle())
        let wave = "8503651_\(departure)_ZSG-7"
        for (rider, name) in [(rude, "Rude Name"), (other, "Marco")] {
            let profile = try RawClient(port: server.port).request(
                "POST", "/rest/v1/user_profiles?on_conflict=user_id", headers: rider.headers + [("Prefer", "resolution=merge-duplicates")],
                body: Array(#"{"user_id":"\#(rider.id)","display_name":"\#(name)"}"#.utf8))
            XCTAssertEqual(profile.status, 201, profile.bodyText)
            let checkin = try RawClient(port: server.port).request(
                "POST", "/rest/v1/wave_checkins", headers: rider.headers,
                body: Array(#"{"wave_id":"\#(wave)","user_id":"\#(rider.id)","display_name":"\#(name)","departure_at":"\#(departure)","lake_id":"Zürichsee"}"#.utf8))
            XCTAssertEqual(checkin.status, 201, checkin.bodyText)
        }
        // A ride each, so that both are on the leaderboard (the nightly archive writes these).
        let connection = try database.connection()
        for rider in [rude, other] {
            try connection.execute(
                "INSERT INTO nextwave_history (user_id, wave_id, station_id, lake_id, departure_at) VALUES ($1::uuid, 'w1', '8503651', 'Zürichsee', now() - interval '1 day')",
                [rider.id])
        }
        let counts = {
            try RawClient(port: server.port).request(
                "POST", "/rest/v1/rpc/wave_checkin_counts", headers: other.headers, body: Array(#"{"wave_ids":["\#(wave)"]}"#.utf8)).bodyText
        }
        let board = {
            try RawClient(port: server.port).request(
                "POST", "/rest/v1/rpc/wave_leaderboard", headers: other.headers, body: Array(#"{"p_station_id":null,"p_limit":50}"#.utf8)).bodyText
        }
        XCTAssertTrue(try counts().contains("Rude Name"))
        XCTAssertTrue(try board().contains("Rude Name"))
        XCTAssertTrue(try board().contains(rude.id) == false, "the board shows names, never a rider's id")

        // Found by any part of the name, in any case.
        let found = try pier(["names", "rude"])
        XCTAssertEqual(found.status, 0, found.output)
        XCTAssertTrue(found.output.contains("\(rude.id)\tRude Name"), found.output)
        XCTAssertFalse(found.output.contains(other.id), found.output)
        XCTAssertTrue(try pier(["names", "%"]).output.contains("no rider's name holds that text"), "a wildcard is a character")

        let cleared = try pier(["clear-name", rude.id])
        XCTAssertEqual(cleared.status, 0, cleared.output)
        var seen = ""
        XCTAssertTrue(try eventually { seen = try counts() + board(); return !seen.contains("Rude Name") && seen.contains("Marco") }, seen)
        XCTAssertEqual(try connection.query("SELECT count(*)::int AS n FROM nextwave_checkins WHERE user_id = $1::uuid", [rude.id])[0].decode(Int.self, "n"), 1,
            "the check-in stays, without the name")

        let deleted = try pier(["delete-user", other.id])
        XCTAssertEqual(deleted.status, 0, deleted.output)
        XCTAssertTrue(try eventually { seen = try counts() + board(); return !seen.contains("Marco") }, seen)
        XCTAssertEqual(try connection.query("SELECT count(*)::int AS n FROM nextwave_users WHERE id = $1::uuid", [other.id])[0].decode(Int.self, "n"), 0)

        // Nobody there: a clear error, exit status 1, nothing changed.
        for arguments in [["delete-user", other.id], ["clear-name", other.id], ["clear-name", "not-a-user-id"]] {
            let refused = try pier(arguments)
            XCTAssertEqual(refused.status, 1, "\(arguments): \(refused.output)")
            XCTAssertTrue(refused.output.contains("no rider has that user id"), refused.output)
        }
        XCTAssertEqual(try connection.query("SELECT count(*)::int AS n FROM nextwave_users")[0].decode(Int.self, "n"), 1)
        XCTAssertEqual(server.stop(), 0)
    }
}
