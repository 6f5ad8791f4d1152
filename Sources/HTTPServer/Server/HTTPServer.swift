import Glibc
import Logging
import Metrics
import Synchronization

/// Pier's HTTP/1.1 server: epoll event loops on non-blocking sockets, one per core by default.
///
/// ```swift
/// let server = try HTTPServer(configuration: .init(port: 8080), router: router)
/// try server.start()
/// // … later, from a signal handler:
/// server.shutdown()
/// server.wait()
/// ```
public final class HTTPServer: Sendable {
    private let shared: ServerShared
    private let loops: [EventLoop]
    private let threads = Mutex<[pthread_t]>([])
    private let state = Mutex<LifeCycle>(.created)

    private enum LifeCycle {
        case created, running, stopping, stopped
    }

    /// The port actually bound (useful with port `0`).
    public let port: Int

    /// Binds the listening socket. Nothing is accepted until ``start()``.
    public init(
        configuration: ServerConfiguration, router: Router, logger: Logger = Logger(label: "pier.http"),
        metrics: MetricsRegistry = MetricsRegistry()
    ) throws {
        Socket.raiseFileLimit()
        signal(SIGPIPE, SIG_IGN)
        let listenFD = try Socket.listen(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        port = Socket.localPort(listenFD)
        let shared = ServerShared(
            configuration: configuration, router: router, logger: logger, registry: metrics,
            listenFD: listenFD)
        self.shared = shared
        do {
            loops = try (0..<configuration.eventLoopCount).map { try EventLoop(index: $0, shared: shared) }
            shared.loops = loops
        } catch {
            Glibc.close(listenFD)
            throw error
        }
    }

    /// Connections open right now, across all loops.
    public var openConnections: Int { shared.openConnections.current }

    /// Starts the event loop threads.
    public func start() throws {
        try state.withLock { state in
            guard case .created = state else { return }
            state = .running
            var started: [pthread_t] = []
            for loop in loops {
                started.append(try Self.spawn(name: "pier-loop-\(loop.index)") { loop.run() })
            }
            threads.withLock { $0 = started }
        }
        shared.logger.info("listening", metadata: [
            "host": "\(shared.configuration.host)", "port": "\(port)", "event_loops": "\(loops.count)",
        ])
    }

    /// Stops accepting and loses nothing that already reached the server: connections the kernel accepted are
    /// taken from the accept queue before the listener closes, every request already received (or waiting in
    /// a socket) is answered — the last one of a connection with `Connection: close` — and idle connections are
    /// half-closed and drained until the client closes, never closed with unread data (which would reset the
    /// connection). Whatever is left after the grace period is closed. Returns at once; see ``wait()``.
    public func shutdown() {
        let proceed = state.withLock { state -> Bool in
            guard case .running = state else { return false }
            state = .stopping
            return true
        }
        guard proceed else { return }
        shared.logger.info("shutting down", metadata: ["open_connections": "\(openConnections)"])
        for loop in loops {
            loop.execute { loop.beginShutdown() }
        }
    }

    /// Blocks until every loop has exited after ``shutdown()``, then releases the listener.
    public func wait() {
        let joined = threads.withLock { threads -> [pthread_t] in
            let taken = threads
            threads.removeAll()
            return taken
        }
        for thread in joined { pthread_join(thread, nil) }
        let closeListener = state.withLock { state -> Bool in
            guard case .stopping = state else { return false }
            state = .stopped
            return true
        }
        if closeListener {
            // The loops have exited: break the loops ↔ shared-state cycle so their descriptors are released.
            shared.loops = []
            shared.closeListener()
            shared.logger.info("stopped")
        }
    }

    /// ``shutdown()`` then ``wait()``.
    public func stop() {
        shutdown()
        wait()
    }

    private final class ThreadBody {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private static func spawn(name _: String, _ body: @escaping @Sendable () -> Void) throws -> pthread_t {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        let result = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let box = Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue()
            box.body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            throw Socket.Failure(call: "pthread_create", errno: result)
        }
        return thread
    }
}
