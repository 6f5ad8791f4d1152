import DatabaseTesting
import Foundation
import Postgres
import XCTest

/// The pool across a real PostgreSQL outage: the cluster `scripts/test` started is stopped and started
/// again (PIER_PG_CLUSTER_DIR / PIER_PG_BINDIR name it).
final class PostgresRestartTests: XCTestCase {
    func pgctl(_ arguments: [String]) throws {
        let environment = ProcessInfo.processInfo.environment
        guard let directory = environment["PIER_PG_CLUSTER_DIR"], let bin = environment["PIER_PG_BINDIR"] else {
            XCTFail("PIER_PG_CLUSTER_DIR/PIER_PG_BINDIR are not set: run through scripts/test, which starts the cluster")
            throw TestDatabase.NotConfigured()
        }
        // PostgreSQL refuses to run as root; scripts/test runs the cluster as `postgres` then.
        // system(3), not Process: Foundation's Process did not reap `pg_ctl start` (its daemon keeps running).
        let prefix = getuid() == 0 ? "runuser -u postgres -- " : ""
        let command = prefix + "'\(bin)/pg_ctl' -D '\(directory)' -w " + arguments.joined(separator: " ") + " >/dev/null 2>&1"
        XCTAssertEqual(system(command), 0, command)
    }

    func testPoolFailsFastDuringAnOutageAndRecoversAfterIt() async throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let pool = database.pool(maxConnections: 2, validationInterval: .zero)
        let before = try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode(Int.self, "pid")

        try pgctl(["-m", "fast", "stop"])
        do {
            try await pool.query("SELECT 1")
            XCTFail("a query during the outage must fail")
        } catch let error as PostgresError {
            guard case .connectionFailed = error else { return XCTFail("got \(error)") }
        }
        let reachable = await pool.ping(timeout: .seconds(2))
        XCTAssertFalse(reachable)

        try pgctl(["-l", "/dev/null", "start"])
        let after = try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode(Int.self, "pid")
        XCTAssertNotEqual(before, after, "served by a new connection after the restart")
        XCTAssertLessThanOrEqual(pool.openConnections, 2)
    }
}
