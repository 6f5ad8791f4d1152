import Foundation
import DatabaseTesting
import Postgres
import XCTest

final class MigratorTests: XCTestCase {
    var database: TestDatabase!

    override func setUpWithError() throws {
        database = try TestDatabase.create()
    }

    override func tearDown() {
        database?.drop()
    }

    static let sample = [
        Migration(version: 1, name: "first", sql: "CREATE TABLE a (k int PRIMARY KEY);\nINSERT INTO a VALUES (1);"),
        Migration(version: 2, name: "second", sql: "CREATE TABLE b (k int);"),
    ]

    func testMigrationsApplyOnceAndRerunIsANoOp() async throws {
        let pool = database.pool()
        let value1 = try await Migrator(migrations: Self.sample).run(on: pool)
        XCTAssertEqual(value1, [1, 2])
        let value2 = try await Migrator(migrations: Self.sample).run(on: pool)
        XCTAssertEqual(value2, [])
        let rows = try await pool.query("SELECT version, name, checksum FROM schema_migrations ORDER BY version")
        XCTAssertEqual(try rows.map { try $0.decode(Int.self, "version") }, [1, 2])
        XCTAssertEqual(try rows[0].decode(String.self, "checksum").count, 64, "SHA-256 hex")
        let value3 = try await pool.query("SELECT count(*) AS n FROM a")[0].decode(Int.self, "n")
        XCTAssertEqual(value3, 1)
    }

    func testChangedAppliedMigrationIsRefused() async throws {
        let pool = database.pool()
        try await Migrator(migrations: Self.sample).run(on: pool)
        var tampered = Self.sample
        tampered[0] = Migration(version: 1, name: "first", sql: Self.sample[0].sql + "\n-- edited")
        do {
            try await Migrator(migrations: tampered).run(on: pool)
            XCTFail("a changed migration must stop start-up")
        } catch let error as MigrationError {
            XCTAssertEqual(error, .checksumMismatch(version: 1, name: "first"))
        }
    }

    func testFailingMigrationLeavesNothingBehind() async throws {
        let pool = database.pool()
        let broken = Self.sample + [Migration(version: 3, name: "broken", sql: "CREATE TABLE c (k int);\nSELECT * FROM missing_table;")]
        do {
            try await Migrator(migrations: broken).run(on: pool)
            XCTFail("expected failure")
        } catch let error as MigrationError {
            guard case .failed(3, "broken", let cause) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(cause.sqlState, "42P01")
        }
        let tables = try await pool.query("SELECT count(*) AS n FROM pg_tables WHERE tablename = 'c'")
        XCTAssertEqual(try tables[0].decode(Int.self, "n"), 0, "the failed migration's table was rolled back")
        let applied = try await pool.query("SELECT max(version) AS v FROM schema_migrations")
        XCTAssertEqual(try applied[0].decode(Int.self, "v"), 2)
    }

    func testConcurrentMigratorsApplyEachMigrationOnce() async throws {
        let pools = (0..<4).map { _ in database.pool() }
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for pool in pools { group.addTask { try await Migrator(migrations: Self.sample).run(on: pool) } }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        XCTAssertEqual(applied.sorted(), [1, 2], "each version applied by exactly one migrator")
        let count = try await pools[0].query("SELECT count(*) AS n FROM a")
        XCTAssertEqual(try count[0].decode(Int.self, "n"), 1)
    }

    func testUnknownAppliedVersionIsRefused() async throws {
        let pool = database.pool()
        try await Migrator(migrations: Self.sample).run(on: pool)
        do {
            try await Migrator(migrations: [Self.sample[0]]).run(on: pool)
            XCTFail("expected failure")
        } catch let error as MigrationError {
            XCTAssertEqual(error, .unknownAppliedVersion(2))
        }
    }

    func testFileNamesAreParsed() {
        XCTAssertEqual(Migration.parse(fileName: "0001_initial.sql")?.version, 1)
        XCTAssertEqual(Migration.parse(fileName: "0012_add_index.sql")?.name, "add_index")
        XCTAssertNil(Migration.parse(fileName: "1_initial.sql"))
        XCTAssertNil(Migration.parse(fileName: "0001initial.sql"))
        XCTAssertNil(Migration.parse(fileName: "0001_.sql"))
    }

    /// A module's migrations live in its folder: the top level and every folder one level down are one sequence of
    /// versions; a version used twice, in any two places, is refused; other files (a README) are not migrations.
    func testFoldersAreOneSequenceOfVersions() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = ["0001_initial.sql": "SELECT 1;", "Ships/0002_ships.sql": "SELECT 2;", "Lakes/0003_lakes.sql": "SELECT 3;", "README.md": "#",
                     "Ships/README.md": "#"]
        for (path, text) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        XCTAssertEqual(try Migrator.load(directory: root.path).map(\.version), [1, 2, 3])
        XCTAssertEqual(try Migrator.load(directory: root.path).map(\.name), ["initial", "ships", "lakes"])
        try Data("SELECT 4;".utf8).write(to: root.appendingPathComponent("Lakes/0002_again.sql"))
        XCTAssertThrowsError(try Migrator.load(directory: root.path)) { XCTAssertEqual($0 as? MigrationError, .duplicateVersion(2)) }
    }

    func testTheProjectsMigrationsApplyWithPostGIS() async throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Migrations").path
        let migrations = try Migrator.load(directory: directory)
        XCTAssertEqual(migrations.first?.version, 1)
        let pool = database.pool()
        try await Migrator(migrations: migrations).run(on: pool)
        try await pool.execute(
            "INSERT INTO weather_stations (fmisid, name, location, updated_at) VALUES ($1, $2, ST_SetSRID(ST_MakePoint($3, $4), 4326)::geography, now())",
            [100971, "Helsinki Kaisaniemi", 24.944, 60.175])
        let nearest = try await pool.query(
            "SELECT name, ST_Distance(location, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography) / 1000 AS km FROM weather_stations ORDER BY location <-> ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography LIMIT 1",
            [24.94, 60.17])
        XCTAssertEqual(try nearest[0].decode(String.self, "name"), "Helsinki Kaisaniemi")
        XCTAssertLessThan(try nearest[0].decode(Double.self, "km"), 1.0)
    }
}
