import Foundation
import Postgres
import XCTest

/// A database of its own for one test, created on the server `scripts/test` started (DATABASE_URL) and
/// dropped afterwards. A missing DATABASE_URL fails the test: these tests never skip.
struct TestDatabase {
    let url: String
    let name: String

    static func create(file: StaticString = #filePath, line: UInt = #line) throws -> TestDatabase {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            XCTFail("DATABASE_URL is not set: run the tests through scripts/test, which starts PostgreSQL", file: file, line: line)
            throw PostgresError.connectionFailed("DATABASE_URL is not set")
        }
        let name = "pier_test_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try PostgresConnection(url: url)
        // Identifiers cannot be parameters; the name is generated above from digits only.
        try admin.execute("CREATE DATABASE \(name)")
        return TestDatabase(url: url, name: name)
    }

    func connection() throws -> PostgresConnection {
        try PostgresConnection(url: url, database: name)
    }

    func pool(
        maxConnections: Int = 4, acquireTimeout: Duration = .seconds(5), validationInterval: Duration = .seconds(10)
    ) -> PostgresPool {
        PostgresPool(configuration: .init(
            url: url, database: name, maxConnections: maxConnections, acquireTimeout: acquireTimeout,
            validationInterval: validationInterval))
    }

    func drop() {
        guard let admin = try? PostgresConnection(url: url) else { return }
        _ = try? admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name])
        _ = try? admin.execute("DROP DATABASE IF EXISTS \(name)")
    }
}
