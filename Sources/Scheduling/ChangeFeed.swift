import Foundation
import Logging
import Postgres
import Synchronization

/// Tells every `pier` process on one database when a source's data changed, with PostgreSQL
/// `LISTEN`/`NOTIFY`: the process that stored new data publishes its ``ChangeTopic``, the others reload it and
/// drop their cached answers. The payload (`<topic> <process>`) is this type's alone; the database's own notices
/// (`<topic> database <body>`, written by `pier_announce` in `Migrations/0033_change_notices.sql`) go to
/// ``ChangeNotices``' subscribers in every process. A listener that loses its connection reconnects and reloads
/// everything, since notifications sent meanwhile are lost.
public final class ChangeFeed: Sendable {
    static let channel = "pier_data_changed"

    /// Tells this process's notifications apart from the others' (one for the process: what ``announce(_:on:)`` sends
    /// from a store's transaction is this process's too).
    public let instance = ChangeFeed.process
    private static let process = UUID().uuidString
    private let url: String
    private let logger: Logger
    private let running = Mutex(true)
    private let onChange: @Sendable (_ topic: ChangeTopic?) -> Void
    private let notices: ChangeNotices

    /// - Parameter onChange: called with what another process announced, or `nil` for "reload everything" (after a
    ///   reconnect).
    /// - Parameter notices: where the database's notices (with a body) go.
    public init(
        url: String, notices: ChangeNotices = ChangeNotices(), logger: Logger = Logger(label: "pier.changes"),
        onChange: @escaping @Sendable (_ topic: ChangeTopic?) -> Void
    ) {
        self.url = url
        self.notices = notices
        self.logger = logger
        self.onChange = onChange
    }

    /// The process name the database's notices carry (`pier_announce`): no process has it, so every one hears them.
    static let database = "database"

    /// Listens on a thread of its own (libpq blocks).
    public func start() {
        let thread = Thread { [self] in listen() }
        thread.name = "pier.changes"
        thread.start()
    }

    public func stop() {
        running.withLock { $0 = false }
    }

    /// Publishes that `topic` changed (from any connection of the pool).
    public func publish(_ topic: ChangeTopic, on pool: PostgresPool) async {
        do {
            _ = try await pool.query("SELECT pg_notify($1, $2)", [Self.channel, Self.payload(topic, from: instance)])
        } catch {
            logger.warning("could not announce new data to other processes", metadata: ["source": "\(topic)", "error": "\(error)"])
        }
    }

    /// Publishes that `topic` changed within the caller's transaction on `connection`: the other processes hear it once
    /// the transaction commits, and nothing if it rolls back. This process does not hear it: the caller tells its own
    /// memory (hearing it again would throw away what was read in between).
    public static func announce(_ topic: ChangeTopic, on connection: PostgresConnection) throws {
        _ = try connection.query("SELECT pg_notify($1, $2)", [channel, payload(topic, from: process)])
    }

    private static func payload(_ topic: ChangeTopic, from process: String) -> String {
        "\(topic.name) \(process)"
    }

    private func listen() {
        var connection: PostgresConnection?
        var listenedBefore = false
        while running.withLock({ $0 }) {
            do {
                if connection == nil {
                    let fresh = try PostgresConnection(url: url, connectTimeoutSeconds: 2)
                    try fresh.execute("LISTEN \(Self.channel)")
                    connection = fresh
                    // The first time, start-up has just loaded everything; after a reconnect, changes may
                    // have been missed.
                    if listenedBefore { onChange(nil) }
                    listenedBefore = true
                }
                for notification in try connection?.notifications(timeout: .milliseconds(500)) ?? [] {
                    let parts = notification.payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
                    if parts.count == 3, parts[1] == Self.database {
                        notices.deliver(ChangeTopic(parts[0]), body: parts[2])
                        continue
                    }
                    guard parts.count == 2, parts[1] != instance else { continue }
                    onChange(ChangeTopic(parts[0]))
                }
            } catch {
                logger.warning("change feed connection lost; reconnecting", metadata: ["error": "\(error)"])
                connection = nil
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }
}
