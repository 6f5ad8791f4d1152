import ArgumentParser
import Feature
import FeatureCommands
import Logging
import Postgres

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
