import Glibc
import Logging
import Synchronization

/// State every event loop of one server reads: configuration, routes, the listener and global counters.
final class ServerShared: Sendable {
    let configuration: ServerConfiguration
    let router: Router
    let logger: Logger
    let metrics: ServerMetrics
    let listenFD: Int32
    /// Open connections across all loops; the connection cap is checked against it.
    let openConnections = Atomic<Int>(0)
    /// Round-robin cursor for handing accepted connections to loops.
    let nextLoop = Atomic<Int>(0)
    /// Every loop of the server. Written once by ``HTTPServer/init`` before any loop thread starts (thread
    /// creation orders that write before every read), never changed after.
    nonisolated(unsafe) var loops: [EventLoop] = []

    init(configuration: ServerConfiguration, router: Router, logger: Logger, metrics: ServerMetrics, listenFD: Int32) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.metrics = metrics
        self.listenFD = listenFD
    }
}
