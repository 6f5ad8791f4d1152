import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// Two `pier` processes on one PostgreSQL behave as one service: one fetches (advisory-lock leader, handed
/// over when it dies), and data stored by either is served by both (LISTEN/NOTIFY).
final class ScaleOutTests: EndToEndTestCase {
    private func health(_ pier: PierProcess) -> [String: Any] {
        guard let response = try? RawClient.request(port: pier.port, "/health"),
            let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        else { return [:] }
        return json
    }

    private func role(_ pier: PierProcess) -> String? { health(pier)["fetcher"] as? String }

    private func lakeRuns() throws -> Int {
        try database.connection().query("SELECT count(*) AS n FROM fetch_runs WHERE source = 'lakes'")[0].decode(Int.self, "n")
    }

    func testOneProcessFetchesAndTheOtherTakesOverWhenItDies() throws {
        let settings = ["PIER_LEADER_CHECK_S": "0.2", "PIER_LAKES_INTERVAL_S": "4"]
        let first = try startPier(settings)
        let second = try startPier(settings)
        XCTAssertTrue(eventually { Set([role(first), role(second)]) == Set(["leader", "standby"]) }, "one leader, one standby")
        XCTAssertTrue(try eventually { try lakeRuns() >= 1 })
        usleep(1_000_000)
        XCTAssertEqual(try lakeRuns(), 1, "only the leader fetched")
        XCTAssertEqual(upstream.requests(.meteonews).count, 1)
        XCTAssertEqual(upstream.requests(.zsg).count, 7, "one week, once")

        let (leader, standby) = role(first) == "leader" ? (first, second) : (second, first)
        kill(leader.process.processIdentifier, SIGKILL)
        leader.process.waitUntilExit()
        XCTAssertTrue(eventually { role(standby) == "leader" }, "the standby took the lock")
        XCTAssertTrue(try eventually { try lakeRuns() >= 2 }, "and runs the fetches now")
        XCTAssertEqual(standby.stop(), 0)
    }

    func testNewDataStoredByOneProcessIsServedByTheOther() throws {
        let settings = ["PIER_LEADER_CHECK_S": "0.2"]
        let first = try startPier(settings)
        let second = try startPier(settings)
        var before = try RawClient.request(port: second.port, "/api/ships")
        XCTAssertTrue(try eventually {
            before = try RawClient.request(port: second.port, "/api/ships")
            return before.status == 200
        })
        upstream.set(.zsg, .shifted)
        let refreshed = try RawClient.request(
            port: first.port, "/api/ships/refresh", method: "POST", headers: [("Authorization", "Bearer s3cret-token")])
        XCTAssertEqual(refreshed.status, 200, refreshed.bodyText)
        let fresh = try RawClient.request(port: first.port, "/api/ships")
        XCTAssertNotEqual(fresh.header("ETag"), before.header("ETag"), "the refresh changed the data")
        XCTAssertTrue(try eventually(within: 5) { try RawClient.request(port: second.port, "/api/ships").header("ETag") == fresh.header("ETag") },
                      "the other process serves the new data without fetching")
        XCTAssertEqual(try RawClient.request(port: second.port, "/api/ships").body, fresh.body)
        XCTAssertEqual(first.stop(), 0)
        XCTAssertEqual(second.stop(), 0)
    }

    /// One Alplakes lake failing for good fails every run, but the lakes that arrived are announced: another
    /// process serves them without fetching (it would otherwise never load new lakes).
    func testLakesStoredByARunThatFailedPartWayReachTheOtherProcess() throws {
        let lakes = (FixtureUpstream.alplakesLakes + ["nosuchlake"]).joined(separator: ",")
        let reader = try startPier(["PIER_FETCH": "off", "PIER_ALPLAKES_LAKES": lakes])
        XCTAssertEqual(try RawClient.request(port: reader.port, "/v1/lake-temperatures").status, 503, "nothing fetched yet")
        let fetcher = try startPier(["PIER_ALPLAKES_LAKES": lakes, "PIER_LEADER_CHECK_S": "0.2"])
        XCTAssertTrue(try eventually {
            let runs = try database.connection().query("SELECT count(*) AS n FROM fetch_runs WHERE source = 'alplakes' AND outcome = 'failed'")
            return try runs[0].decode(Int.self, "n") >= 1
        }, "the run failed (one lake is unknown upstream)")
        var keys: [String] = []
        XCTAssertTrue(try eventually {
            let response = try RawClient.request(port: reader.port, "/v1/lake-temperatures")
            let lakes = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["lakes"] as? [[String: Any]]
            keys = lakes?.compactMap { $0["key"] as? String } ?? []
            return keys == FixtureUpstream.alplakesLakes
        }, "the reader serves the lakes that arrived: \(keys)")
        XCTAssertEqual(fetcher.stop(), 0)
        XCTAssertEqual(reader.stop(), 0)
    }

    private func sourceStates(_ pier: PierProcess) -> [String: String] {
        let sources = health(pier)["sources"] as? [String: [String: Any]] ?? [:]
        return sources.compactMapValues { $0["status"] as? String }
    }

    /// Every replica's /health describes the data it serves: a standby that serves the leader's fresh data says
    /// `ok` as soon as it has loaded it (not at its next periodic reload: the tick here is 10 minutes), and an
    /// on-demand source nobody asked yet is `idle` on both, not `stale`.
    func testEveryReplicaReportsTheStateOfTheDataItServes() throws {
        let settings = ["PIER_LEADER_CHECK_S": "0.2", "PIER_FETCH_TICK_S": "600"]
        let first = try startPier(settings)
        let second = try startPier(settings)
        XCTAssertTrue(eventually { Set([role(first), role(second)]) == Set(["leader", "standby"]) }, "one leader, one standby")
        let (leader, standby) = role(first) == "leader" ? (first, second) : (second, first)
        let fetched = ["ships", "lakes", "weather"]
        XCTAssertTrue(eventually(within: 20) { fetched.allSatisfy { sourceStates(leader)[$0] == "ok" } }, "\(sourceStates(leader))")
        XCTAssertTrue(eventually(within: 5) { fetched.allSatisfy { sourceStates(standby)[$0] == "ok" } },
                      "the standby serves the same fresh data, so it says ok: \(sourceStates(standby))")
        XCTAssertEqual(try RawClient.request(port: standby.port, "/api/ships").header("ETag"),
                       try RawClient.request(port: leader.port, "/api/ships").header("ETag"))
        XCTAssertEqual(sourceStates(leader)["stationboard"], "idle")
        XCTAssertEqual(sourceStates(standby)["stationboard"], "idle")

        // A third replica started now loads the fresh data at start, and says so at once.
        let third = try startPier(settings)
        XCTAssertEqual(role(third), "standby")
        XCTAssertEqual(fetched.map { sourceStates(third)[$0] }, ["ok", "ok", "ok"], "\(sourceStates(third))")
        // What the operator's alerts read (PierNoFetchLeader, PierTwoFetchLeaders, PierSourceStale): one fetching
        // replica among the three, and /health's source states in /metrics.
        let leaders: [Double?] = [leader === first ? 1 : 0, leader === second ? 1 : 0, 0]
        XCTAssertEqual(try [first, second, third].map { try $0.metric("pier_fetch_leader") }, leaders)
        for pier in [first, second, third] {
            XCTAssertEqual(try pier.metric(#"pier_source_state{source="ships",fetched="scheduled",state="ok"}"#), 1)
            XCTAssertEqual(try pier.metric(#"pier_source_state{source="ships",fetched="scheduled",state="stale"}"#), 0)
            XCTAssertEqual(try pier.metric(#"pier_source_state{source="stationboard",fetched="on_demand",state="idle"}"#), 1)
            XCTAssertEqual(try pier.metric("pier_postgres_up"), 1)
        }

        // Asked once, the on-demand source is no longer idle on the replica that asked.
        XCTAssertEqual(try RawClient.request(port: standby.port, "/v1/stationboard?id=8503651").status, 200)
        XCTAssertEqual(sourceStates(standby)["stationboard"], "ok")
        for pier in [first, second, third] { XCTAssertEqual(pier.stop(), 0) }
    }
}
