import ArgumentParser
import Dispatch
import Logging
import Postgres
import Synchronization

/// The database pieces both `serve` and `migrate` need: the pool from `DATABASE_URL`, and migrations.
enum Database {
    static func pool(_ configuration: Configuration) throws -> PostgresPool {
        guard let url = configuration.databaseURL else {
            throw ValidationError("DATABASE_URL is not set (scripts/run starts a local PostgreSQL and sets it for you)")
        }
        return PostgresPool(configuration: .init(
            url: url, maxConnections: configuration.databasePoolSize, acquireTimeout: configuration.databaseAcquireTimeout))
    }

    /// The pool with every pending migration applied; a failure is logged and ends the command.
    static func migratedPool(_ configuration: Configuration, logger: Logger) throws -> PostgresPool {
        let pool = try pool(configuration)
        try migrateAtStart(pool, configuration, logger: logger)
        return pool
    }

    /// Applies pending migrations to `pool` (made with ``pool(_:)``, not used yet); a failure is logged, closes the
    /// pool and ends the command.
    static func migrateAtStart(_ pool: PostgresPool, _ configuration: Configuration, logger: Logger) throws {
        do {
            try migrate(pool, configuration, logger: logger)
        } catch {
            logger.error("cannot start: database migrations failed", metadata: ["error": "\(error)"])
            pool.close()
            throw ExitCode.failure
        }
    }

    /// Applies pending migrations; any problem stops start-up with a message naming the file.
    @discardableResult
    static func migrate(_ pool: PostgresPool, _ configuration: Configuration, logger: Logger) throws -> [Int] {
        let migrations = try Migrator.load(directory: configuration.migrationsDirectory)
        return try runBlocking { try await Migrator(migrations: migrations, logger: logger).run(on: pool) }
    }
}

/// Runs async work from the synchronous command entry points and waits for it. Only for start-up and
/// one-shot commands: the calling thread blocks, and it is never an event loop or a concurrency thread.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    guard let outcome = result.withLock({ $0 }) else { throw CancellationError() }
    return try outcome.get()
}
