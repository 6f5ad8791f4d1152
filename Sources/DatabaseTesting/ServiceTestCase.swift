import Postgres
import UpstreamTesting
import XCTest

/// For tests of a service against real PostgreSQL and the local upstreams: a throw-away migrated database, a
/// pool on it and a ``FixtureUpstream`` for each test, dropped after it.
open class ServiceTestCase: XCTestCase {
    public var database: TestDatabase!
    public var pool: PostgresPool!
    public var upstream: FixtureUpstream!

    open override func setUp() async throws {
        database = try TestDatabase.createMigrated()
        pool = try await database.migratedPool()
        upstream = try FixtureUpstream()
    }

    open override func tearDown() {
        upstream?.stop()
        pool?.close()
        database?.drop()
    }
}
