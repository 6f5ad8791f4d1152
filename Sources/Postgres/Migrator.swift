import Foundation
import Logging

/// Applies `Migrations/*.sql` in version order, each in its own transaction, and records them in
/// `schema_migrations` with a SHA-256 checksum. A PostgreSQL advisory lock makes concurrent starts safe:
/// the second process waits, then finds everything applied.
public struct Migrator: Sendable {
    /// Arbitrary but fixed: every Pier process takes the same lock.
    static let lockKey: Int64 = 0x7069_6572_6d69_67  // "piermig"

    public let migrations: [Migration]
    private let logger: Logger

    public init(migrations: [Migration], logger: Logger = Logger(label: "pier.migrations")) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.logger = logger
    }

    /// Reads every `NNNN_description.sql` in `directory` and in its folders, one level down — a module's own migrations
    /// live in `Migrations/<Module>/`, so who owns a table is read from where it is created; the versions are one
    /// sequence across all of them. Other `.sql` names are an error, other files ignored.
    public static func load(directory: String) throws -> [Migration] {
        var files: [(path: String, name: String)] = []
        for entry in try entries(of: directory) {
            let path = directory + "/" + entry
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                files += try entries(of: path).map { (path + "/" + $0, $0) }
            } else {
                files.append((path, entry))
            }
        }
        var migrations: [Migration] = []
        var seen = Set<Int>()
        for file in files where file.name.hasSuffix(".sql") {
            guard let (version, name) = Migration.parse(fileName: file.name) else { throw MigrationError.invalidFileName(file.name) }
            guard let data = FileManager.default.contents(atPath: file.path) else { throw MigrationError.unreadableDirectory(file.path) }
            guard seen.insert(version).inserted else { throw MigrationError.duplicateVersion(version) }
            migrations.append(Migration(version: version, name: name, sql: String(decoding: data, as: UTF8.self)))
        }
        return migrations.sorted { $0.version < $1.version }
    }

    private static func entries(of directory: String) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw MigrationError.unreadableDirectory(directory)
        }
    }

    /// Applies what is missing; returns the versions applied by this call.
    @discardableResult
    public func run(on pool: PostgresPool) async throws -> [Int] {
        let migrations = self.migrations
        let logger = self.logger
        return try await pool.withConnection { connection in
            try connection.execute("SELECT pg_advisory_lock($1)", [Self.lockKey])
            defer { _ = try? connection.execute("SELECT pg_advisory_unlock($1)", [Self.lockKey]) }
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            var applied: [Int: String] = [:]
            for row in try connection.query("SELECT version, checksum FROM schema_migrations") {
                applied[try row.decode(Int.self, "version")] = try row.decode(String.self, "checksum")
            }
            let known = Set(migrations.map(\.version))
            if let unknown = applied.keys.sorted().first(where: { !known.contains($0) }) {
                throw MigrationError.unknownAppliedVersion(unknown)
            }
            var done: [Int] = []
            for migration in migrations {
                let checksum = try connection.query(
                    "SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') AS sum", [migration.sql])[0].decode(String.self, "sum")
                if let recorded = applied[migration.version] {
                    guard recorded == checksum else {
                        throw MigrationError.checksumMismatch(version: migration.version, name: migration.name)
                    }
                    continue
                }
                do {
                    try connection.transaction { connection in
                        try connection.executeScript(migration.sql)
                        try connection.execute(
                            "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                            [migration.version, migration.name, checksum])
                    }
                } catch let error as PostgresError {
                    throw MigrationError.failed(version: migration.version, name: migration.name, error)
                }
                logger.info("applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                done.append(migration.version)
            }
            return done
        }
    }
}
