import Foundation
import Logging
import Postgres
import Synchronization

/// Decides which of several `pier` processes on one database runs the background fetches: the one holding a
/// PostgreSQL session-level advisory lock. The lock lives on a connection of its own; when its holder dies or
/// loses the connection, PostgreSQL releases it and another process takes it at its next check.
public final class LeaderElection: Sendable {
    /// The advisory lock key ("PIER" in ASCII), shared by every process of one deployment.
    public static let lockKey: Int64 = 0x5049_4552

    private let url: String
    private let interval: Duration
    private let logger: Logger
    private let leader = Mutex(false)
    private let running = Mutex(true)

    public init(url: String, interval: Duration = .seconds(2), logger: Logger = Logger(label: "pier.leader")) {
        self.url = url
        self.interval = interval
        self.logger = logger
    }

    public var isLeader: Bool { leader.withLock { $0 } }

    /// Starts checking on a thread of its own (libpq blocks).
    public func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "pier.leader"
        thread.start()
    }

    public func stop() {
        running.withLock { $0 = false }
    }

    private func loop() {
        var connection: PostgresConnection?
        while running.withLock({ $0 }) {
            do {
                let current = try connection ?? PostgresConnection(url: url, connectTimeoutSeconds: 2)
                connection = current
                if isLeader {
                    _ = try current.query("SELECT 1")
                } else {
                    let rows = try current.query("SELECT pg_try_advisory_lock($1) AS acquired", [Self.lockKey])
                    if try rows.first?.decode(Bool.self, "acquired") == true {
                        leader.withLock { $0 = true }
                        logger.info("this process now runs the background fetches (leader)")
                    }
                }
            } catch {
                if isLeader { logger.warning("lost the leader lock's connection; another process may take over", metadata: ["error": "\(error)"]) }
                leader.withLock { $0 = false }
                connection = nil
            }
            Thread.sleep(forTimeInterval: interval.seconds)
        }
        leader.withLock { $0 = false }
    }
}
