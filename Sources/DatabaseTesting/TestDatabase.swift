import Foundation
import Postgres

/// A database of its own for one test, created on the server `scripts/test` started (`DATABASE_URL`) and
/// dropped afterwards. A missing `DATABASE_URL` throws, so the test fails: database tests never skip.
public struct TestDatabase: Sendable {
    public struct NotConfigured: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "DATABASE_URL is not set: run the tests through scripts/test, which starts PostgreSQL" }
    }

    public let url: String
    public let name: String

    /// The server's URL from the environment.
    public static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else { throw NotConfigured() }
        return url
    }

    public static func create() throws -> TestDatabase {
        let url = try serverURL()
        let name = "pier_test_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try PostgresConnection(url: url)
        // Identifiers cannot be parameters; the name is generated above from digits only.
        try admin.execute("CREATE DATABASE \(name)")
        return TestDatabase(url: url, name: name)
    }

    /// A database with every migration applied, copied from a template migrated once per set of migrations
    /// (``MigratedTemplate``): `CREATE DATABASE … TEMPLATE` copies files, where migrating anew ran every migration —
    /// PostGIS's extension among them — for every test.
    public static func createMigrated() throws -> TestDatabase {
        let url = try serverURL()
        let template = try MigratedTemplate.name(serverURL: url)
        let name = "pier_test_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try PostgresConnection(url: url)
        try admin.execute("CREATE DATABASE \(name) TEMPLATE \(template)")
        return TestDatabase(url: url, name: name)
    }

    /// The server URL with its database replaced by this one (for child processes).
    public var childURL: String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let queryStart = rest[authorityEnd...].firstIndex(of: "?") ?? rest.endIndex
        return String(url[..<scheme.upperBound]) + rest[..<authorityEnd] + "/" + name + rest[queryStart...]
    }

    public func connection() throws -> PostgresConnection {
        try PostgresConnection(url: url, database: name)
    }

    public func pool(
        maxConnections: Int = 4, acquireTimeout: Duration = .seconds(5), validationInterval: Duration = .seconds(10)
    ) -> PostgresPool {
        PostgresPool(configuration: .init(
            url: url, database: name, maxConnections: maxConnections, acquireTimeout: acquireTimeout,
            validationInterval: validationInterval))
    }

    /// A pool on this database with the project's migrations applied — up to `version` to fill a database the way
    /// an earlier release left it (an upgrade's test).
    public func migratedPool(through version: Int = .max) async throws -> PostgresPool {
        let pool = pool()
        try await Migrator(migrations: try Migrator.load(directory: Self.migrationsDirectory).filter { $0.version <= version }).run(on: pool)
        return pool
    }

    /// The repository's `Migrations/`.
    static let migrationsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Migrations").path

    /// Drops the database, and its demo twin (`<name>_demo`, made by `pier serve --demo`) if there is one.
    public func drop() {
        guard let admin = try? PostgresConnection(url: url) else { return }
        for database in [name, name + "_demo"] {
            _ = try? admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [database])
            _ = try? admin.execute("DROP DATABASE IF EXISTS \(database)")
        }
    }
}
