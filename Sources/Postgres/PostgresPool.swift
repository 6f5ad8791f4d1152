import Dispatch
import Foundation
import Logging
import Synchronization

/// A bounded pool of connections shared by the whole process.
///
/// Work runs on Dispatch threads (libpq blocks), so neither event loops nor the Swift concurrency pool ever
/// wait on the network. Broken connections are dropped when returned and replaced on demand, so a PostgreSQL
/// restart costs the queries in flight during it, not a Pier restart. A connection idle for longer than
/// `validationInterval` is pinged before it is handed out.
public final class PostgresPool: Sendable {
    public struct Configuration: Sendable {
        public var url: String
        /// Overrides the database named in the URL.
        public var database: String?
        public var maxConnections: Int
        /// How long a caller waits for a free connection before `poolTimeout`.
        public var acquireTimeout: Duration
        public var connectTimeoutSeconds: Int
        /// Idle connections older than this are checked with a round trip before use.
        public var validationInterval: Duration

        public init(
            url: String, database: String? = nil, maxConnections: Int = 10, acquireTimeout: Duration = .seconds(5), connectTimeoutSeconds: Int = 5,
            validationInterval: Duration = .seconds(10)
        ) {
            self.url = url
            self.database = database
            self.maxConnections = maxConnections
            self.acquireTimeout = acquireTimeout
            self.connectTimeoutSeconds = connectTimeoutSeconds
            self.validationInterval = validationInterval
        }
    }

    private struct Idle {
        let connection: PostgresConnection
        let since: ContinuousClock.Instant
    }

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<PostgresConnection?, any Error>
    }

    private struct State {
        var idle: [Idle] = []
        var open = 0
        var waiters: [Waiter] = []
        var nextWaiter = 0
        /// Waiters whose timer fired before they were queued (a race under heavy load).
        var expiredEarly: Set<Int> = []
        var closed = false
    }

    public let configuration: Configuration
    private let logger: Logger
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "pier.postgres", attributes: .concurrent)

    public init(configuration: Configuration, logger: Logger = Logger(label: "pier.postgres")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Connections open now (idle and in use).
    public var openConnections: Int { state.withLock { $0.open } }

    /// Connections open now, those of them idle, and the callers waiting for one (`/metrics`).
    public var usage: (open: Int, idle: Int, waiting: Int) { state.withLock { ($0.open, $0.idle.count, $0.waiters.count) } }

    /// Runs `body` with a connection of its own, on a Dispatch thread.
    @discardableResult
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let connection = try await acquire()
        defer { release(connection) }
        return try await onQueue { try body(connection) }
    }

    /// `body` inside a transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection { connection in try connection.transaction(body) }
    }

    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = []) async throws -> [PostgresRow] {
        try await withConnection { try $0.query(sql, parameters) }
    }

    @discardableResult
    public func execute(_ sql: String, _ parameters: [any PostgresEncodable] = []) async throws -> Int {
        try await withConnection { try $0.execute(sql, parameters) }
    }

    /// `sql`'s rows, or nil when it fails or has not answered within `timeout` (a monitor's question, asked in the
    /// background: it must not wait on a database that hangs).
    public func rows(_ sql: String, timeout: Duration) async -> [PostgresRow]? {
        await withTaskGroup(of: [PostgresRow]?.self) { group in
            group.addTask { try? await self.query(sql) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Closes idle connections and fails waiters; connections in use close when returned.
    public func close() {
        // Idle connections are finished (PQfinish) as they leave the state here.
        let waiters = state.withLock { state -> [Waiter] in
            state.closed = true
            state.open -= state.idle.count
            state.idle.removeAll()
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: PostgresError.poolClosed) }
    }

    // MARK: - Acquire and release

    private enum Plan {
        case use(PostgresConnection, validate: Bool)
        case connect
        case wait(Int)
    }

    private func acquire() async throws -> PostgresConnection {
        while true {
            let now = ContinuousClock.now
            let validationInterval = configuration.validationInterval
            let plan: Plan = try state.withLock { state in
                if state.closed { throw PostgresError.poolClosed }
                if let idle = state.idle.popLast() {
                    return .use(idle.connection, validate: now - idle.since >= validationInterval)
                }
                if state.open < configuration.maxConnections {
                    state.open += 1
                    return .connect
                }
                state.nextWaiter += 1
                return .wait(state.nextWaiter)
            }
            switch plan {
            case .use(let connection, let validate):
                if !validate { return connection }
                let alive = (try? await onQueue { try connection.query("SELECT 1") }) != nil && connection.isHealthy
                if alive { return connection }
                logger.info("replacing a broken database connection", metadata: ["pid": "\(connection.backendPID)"])
                discard()
                continue
            case .connect:
                do {
                    return try await connect()
                } catch {
                    discard()
                    throw error
                }
            case .wait(let id):
                if let connection = try await wait(id: id) { return connection }
                // Woken with a free slot instead of a connection: try again.
            }
        }
    }

    private func connect() async throws -> PostgresConnection {
        let url = configuration.url
        let database = configuration.database
        let timeout = configuration.connectTimeoutSeconds
        return try await onQueue { try PostgresConnection(url: url, database: database, connectTimeoutSeconds: timeout) }
    }

    /// Waits for a released connection (or a freed slot, signalled with nil) until the acquire timeout.
    private func wait(id: Int) async throws -> PostgresConnection? {
        let timeout = configuration.acquireTimeout
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.expire(id)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let outcome = state.withLock { state -> PostgresError? in
                if state.closed { return .poolClosed }
                if state.expiredEarly.remove(id) != nil { return .poolTimeout(milliseconds: timeoutMilliseconds) }
                state.waiters.append(Waiter(id: id, continuation: continuation))
                return nil
            }
            if let outcome { continuation.resume(throwing: outcome) }
        }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.expiredEarly.insert(id)
                return nil
            }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: PostgresError.poolTimeout(milliseconds: timeoutMilliseconds))
    }

    private var timeoutMilliseconds: Int {
        let (seconds, attoseconds) = configuration.acquireTimeout.components
        return Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    private func release(_ connection: PostgresConnection) {
        guard connection.isHealthy else {
            logger.info("dropping a broken database connection", metadata: ["pid": "\(connection.backendPID)"])
            discard()
            return
        }
        let waiter = state.withLock { state -> Waiter? in
            if state.closed {
                state.open -= 1
                return nil
            }
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.idle.append(Idle(connection: connection, since: .now))
            return nil
        }
        waiter?.continuation.resume(returning: connection)
    }

    /// Gives up a connection slot; a waiter, if any, is told to try again (and will connect anew).
    private func discard() {
        let waiter = state.withLock { state -> Waiter? in
            state.open -= 1
            return state.waiters.isEmpty ? nil : state.waiters.removeFirst()
        }
        waiter?.continuation.resume(returning: nil)
    }

    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    continuation.resume(returning: try work())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
