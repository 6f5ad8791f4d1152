import Glibc
import Logging
import Metrics
import Synchronization

/// State every event loop of one server reads: configuration, routes, the listener and global counters.
final class ServerShared: Sendable {
    let configuration: ServerConfiguration
    let router: Router
    let logger: Logger
    let metrics: ServerMetrics
    let listenFD: Int32
    /// `Server` and the configured extra headers, encoded once.
    let fixedHeaders: [UInt8]
    /// Open connections across all loops; the connection cap is checked against it, `/metrics` reads it.
    let openConnections = ConnectionCount()
    /// Open WebSockets in all and per client, against ``WebSocketSettings``' caps.
    let webSockets = WebSocketCounts()
    /// Round-robin cursor for handing accepted connections to loops.
    let nextLoop = Atomic<Int>(0)
    /// Loops that stopped accepting during shutdown; the last one drains the accept queue and closes the listener.
    let loopsStoppedListening = Atomic<Int>(0)
    private let listenerOpen = Atomic<Bool>(true)
    /// Every loop of the server. Written once by ``HTTPServer/init`` before any loop thread starts (thread
    /// creation orders that write before every read), never changed after.
    nonisolated(unsafe) var loops: [EventLoop] = []

    init(configuration: ServerConfiguration, router: Router, logger: Logger, registry: MetricsRegistry, listenFD: Int32) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.listenFD = listenFD
        fixedHeaders = ResponseEncoder.serverHeader + configuration.extraHeaders.flatMap { Array("\($0.name): \($0.value)\r\n".utf8) }
        let (open, sockets) = (openConnections, webSockets)
        self.metrics = ServerMetrics(registry: registry, openConnections: { open.current }, openWebSockets: { sockets.total })
    }

    /// Whether the listening socket is closed (no loop accepts from it any more).
    var listenerClosed: Bool { !listenerOpen.load(ordering: .acquiring) }

    /// Closes the listening socket once, whoever asks first.
    func closeListener() {
        if listenerOpen.exchange(false, ordering: .acquiringAndReleasing) { Glibc.close(listenFD) }
    }
}

/// The number of open connections, shared by every loop.
final class ConnectionCount: Sendable {
    private let value = Atomic<Int>(0)

    var current: Int { value.load(ordering: .relaxed) }

    /// Counts a new connection unless that would exceed `limit`: the count with it, `nil` when refused.
    func admit(limit: Int) -> Int? {
        let count = value.add(1, ordering: .relaxed).newValue
        guard count <= limit else {
            value.subtract(1, ordering: .relaxed)
            return nil
        }
        return count
    }

    func release() {
        value.subtract(1, ordering: .relaxed)
    }
}
