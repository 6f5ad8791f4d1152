import Foundation
import DatabaseTesting
import Postgres
import XCTest

final class PostgresPoolTests: XCTestCase {
    var database: TestDatabase!

    override func setUpWithError() throws {
        database = try TestDatabase.create()
    }

    override func tearDown() {
        database?.drop()
    }

    func testExhaustedPoolTimesOut() async throws {
        let pool = database.pool(maxConnections: 1, acquireTimeout: .milliseconds(200))
        let holder = Task { try await pool.query("SELECT pg_sleep(2)") }
        // Wait until the holder really has the only connection.
        while pool.openConnections == 0 { try await Task.sleep(for: .milliseconds(5)) }
        do {
            try await pool.query("SELECT 1")
            XCTFail("expected a pool timeout")
        } catch let error as PostgresError {
            XCTAssertEqual(error, .poolTimeout(milliseconds: 200))
        }
        _ = try await holder.value
        let value1 = try await pool.query("SELECT 1 AS one")[0].decode(Int.self, "one")
        XCTAssertEqual(value1, 1, "usable again once released")
    }

    func testWaitersGetReleasedConnections() async throws {
        let pool = database.pool(maxConnections: 2, acquireTimeout: .seconds(10))
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<10 {
                group.addTask { try await pool.query("SELECT $1::int AS i, pg_sleep(0.05)", [i])[0].decode(Int.self, "i") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(results.sorted(), Array(0..<10))
        XCTAssertLessThanOrEqual(pool.openConnections, 2)
    }

    func testKilledBackendIsReplacedBeforeUse() async throws {
        let pool = database.pool(maxConnections: 1, validationInterval: .zero)
        let first = try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode(Int.self, "pid")
        let admin = try database.connection()
        try admin.execute("SELECT pg_terminate_backend($1)", [first])
        let second = try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode(Int.self, "pid")
        XCTAssertNotEqual(first, second, "a new backend serves the query")
    }

    func testKilledBackendFailsOneQueryThenIsReplaced() async throws {
        let pool = database.pool(maxConnections: 1, validationInterval: .seconds(3600))
        let first = try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode(Int.self, "pid")
        let admin = try database.connection()
        try admin.execute("SELECT pg_terminate_backend($1)", [first])
        do {
            try await pool.query("SELECT 1")
            XCTFail("the query on the killed connection must fail")
        } catch let error as PostgresError {
            guard case .connectionLost = error else { return XCTFail("got \(error)") }
        }
        let second = try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode(Int.self, "pid")
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(pool.openConnections, 1)
    }

    func testTransactionThroughThePoolRollsBack() async throws {
        let pool = database.pool()
        try await pool.execute("CREATE TABLE t (k int PRIMARY KEY)")
        do {
            try await pool.transaction { connection in
                try connection.execute("INSERT INTO t VALUES (1)")
                try connection.execute("INSERT INTO t VALUES (1)")
            }
            XCTFail("duplicate key must throw")
        } catch let error as PostgresError {
            XCTAssertEqual(error.sqlState, "23505")
        }
        let value2 = try await pool.query("SELECT count(*) AS n FROM t")[0].decode(Int.self, "n")
        XCTAssertEqual(value2, 0)
    }

    func testPingReportsReachability() async throws {
        let pool = database.pool()
        let reachable = await pool.rows("SELECT 1", timeout: .seconds(2)) != nil
        XCTAssertTrue(reachable)
        let nowhere = PostgresPool(configuration: .init(url: "postgresql:///pier?host=/nonexistent-socket-dir&user=pier"))
        let unreachable = await nowhere.rows("SELECT 1", timeout: .seconds(2)) != nil
        XCTAssertFalse(unreachable)
    }

    func testClosedPoolRefusesWork() async throws {
        let pool = database.pool()
        pool.close()
        do {
            try await pool.query("SELECT 1")
            XCTFail("closed pool must refuse")
        } catch let error as PostgresError {
            XCTAssertEqual(error, .poolClosed)
        }
    }
}
