import Foundation
import Postgres
import Synchronization

/// The database every migrated test database is copied from: made once per server and set of migrations (its name
/// carries a fingerprint of their texts, so a changed or added migration gets a new template instead of a stale one),
/// under an advisory lock so that test processes sharing a server make it once. Made under another name and renamed
/// when complete: a run killed half-way leaves nothing a later run would copy.
enum MigratedTemplate {
    private static let made = Mutex<[String: String]>([:])
    private static let lockKey = 7_219_004

    /// The template's name on the server at `url`, made first if it is not there.
    static func name(serverURL url: String) throws -> String {
        // Held while the template is made: the other tests of this process wait for it rather than make their own.
        try made.withLock { made in
            if let name = made[url] { return name }
            let migrations = try Migrator.load(directory: TestDatabase.migrationsDirectory)
            let name = "pier_template_\(fingerprint(migrations))"
            let admin = try PostgresConnection(url: url)
            try admin.execute("SELECT pg_advisory_lock($1)", [lockKey])
            defer { _ = try? admin.execute("SELECT pg_advisory_unlock($1)", [lockKey]) }
            if try admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]).isEmpty {
                let partial = TestDatabase(url: url, name: name + "_partial")
                partial.drop()
                try admin.execute("CREATE DATABASE \(partial.name)")
                try migrate(partial, with: migrations)
                // The pool's connections end as it closes; the server may still be finishing them.
                _ = try admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [partial.name])
                try admin.execute("ALTER DATABASE \(partial.name) RENAME TO \(name)")
            }
            made[url] = name
            return name
        }
    }

    private static func migrate(_ database: TestDatabase, with migrations: [Migration]) throws {
        let pool = database.pool(maxConnections: 1)
        defer { pool.close() }
        // Tests make databases in synchronous set-ups; the migrator is async.
        let outcome = Mutex<Result<Void, any Error>>(.success(()))
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await Migrator(migrations: migrations).run(on: pool)
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0 }.get()
    }

    /// FNV-1a over the migrations' versions and texts, in hex.
    private static func fingerprint(_ migrations: [Migration]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for migration in migrations {
            for byte in Array("\(migration.version)\u{0}\(migration.sql)\u{0}".utf8) {
                hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }
}
