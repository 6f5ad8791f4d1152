import DatabaseTesting
import Foundation
import Postgres
import XCTest

/// The pool across a real PostgreSQL outage: the cluster `scripts/test` started is stopped and started
/// again (PIER_PG_CLUSTER_DIR / PIER_PG_BINDIR name it).
final class PostgresRestartTests: XCTestCase {
    func testPoolFailsFastDuringAnOutageAndRecoversAfterIt() async throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let pool = database.pool(maxConnections: 2, validationInterval: .zero)
        let before = try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode(Int.self, "pid")

        try TestCluster.stop()
        do {
            try await pool.query("SELECT 1")
            XCTFail("a query during the outage must fail")
        } catch let error as PostgresError {
            guard case .connectionFailed = error else { return XCTFail("got \(error)") }
        }
        let reachable = await pool.rows("SELECT 1", timeout: .seconds(2)) != nil
        XCTAssertFalse(reachable)

        try TestCluster.start()
        let after = try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode(Int.self, "pid")
        XCTAssertNotEqual(before, after, "served by a new connection after the restart")
        XCTAssertLessThanOrEqual(pool.openConnections, 2)
    }
}
