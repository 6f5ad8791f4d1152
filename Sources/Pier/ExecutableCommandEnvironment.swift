import Feature
import FeatureCommands
import Logging
import Postgres
import Scheduling

/// What the features' commands run in (``CommandEnvironment``): the configuration from the environment, logging, the
/// migrated pool, and the change feed that tells running processes about new data.
struct ExecutableCommandEnvironment: CommandEnvironment {
    func withDatabase(announcing topic: ChangeTopic?, _ body: @escaping @Sendable (PostgresPool) async throws -> Void) throws {
        let configuration = try Configuration.load()
        Configuration.bootstrapLogging(configuration)
        let pool = try Database.migratedPool(configuration, logger: Logger(label: "pier"))
        defer { pool.close() }
        try runBlocking { try await body(pool) }
        guard let topic else { return }
        let changes = ChangeFeed(url: configuration.databaseURL ?? "") { _ in }
        try runBlocking { await changes.publish(topic, on: pool) }
    }
}
