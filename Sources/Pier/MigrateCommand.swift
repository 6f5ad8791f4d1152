import ArgumentParser
import Feature
import Logging

/// `pier migrate`: applies pending migrations from `Migrations/` and exits.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending database migrations and exit.",
        discussion: "Environment: DATABASE_URL (required), PIER_MIGRATIONS_DIR (default Migrations).")

    func run() throws {
        let configuration = try Configuration.load()
        Configuration.bootstrapLogging(configuration)
        let logger = Logger(label: "pier")
        let pool = try Database.pool(configuration)
        defer { pool.close() }
        do {
            let applied = try Database.migrate(pool, configuration, logger: logger)
            logger.info("migrations done", metadata: ["applied": "\(applied)"])
        } catch {
            logger.error("migrations failed", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }
    }
}
