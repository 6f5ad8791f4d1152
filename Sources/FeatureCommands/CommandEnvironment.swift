import Postgres
import Scheduling
import Synchronization

/// What a feature's own CLI command (``Feature/commands``) needs of the executable, without knowing its configuration:
/// the database with every migration applied, and a word to running processes that a source has new data. The
/// executable sets it before parsing its arguments (``current``); a command asks for it when it runs.
public protocol CommandEnvironment: Sendable {
    /// Runs `body` with a pool on `DATABASE_URL` (migrations applied, logging set up), closes it, and — when
    /// `announcing` names a topic — tells every running `pier serve` to reload it (the change feed).
    func withDatabase(announcing topic: ChangeTopic?, _ body: @escaping @Sendable (PostgresPool) async throws -> Void) throws
}

/// The executable's ``CommandEnvironment``, set once at start.
public enum Commands {
    private static let environment = Mutex<(any CommandEnvironment)?>(nil)

    /// Set by the executable before its arguments are parsed.
    public static func use(_ environment: any CommandEnvironment) {
        self.environment.withLock { $0 = environment }
    }

    /// The environment a feature's command runs in.
    public static var current: any CommandEnvironment {
        get throws(CommandsUnavailable) {
            guard let environment = environment.withLock({ $0 }) else { throw CommandsUnavailable() }
            return environment
        }
    }
}

/// A feature's command run outside the executable (no ``CommandEnvironment`` set).
public struct CommandsUnavailable: Error, CustomStringConvertible {
    public var description: String { "this command runs only inside the pier executable" }
}
