import CSystem
import Glibc

/// Everything the server needs to know to listen and protect itself; defaults come from the contract.
public struct ServerConfiguration: Sendable {
    /// Address to bind (`0.0.0.0`, `::`, `127.0.0.1`, a host name).
    public var host: String
    /// Port to bind; `0` picks a free one (see ``HTTPServer/port``).
    public var port: Int
    /// Event loop threads; defaults to one per CPU the process may run on.
    public var eventLoopCount: Int
    public var limits: ParserLimits
    /// From a request's first byte until its head is complete (slowloris protection).
    public var headerReadTimeout: Duration
    /// From the end of the head until the body is complete.
    public var bodyReadTimeout: Duration
    /// How long an idle keep-alive connection is kept.
    public var idleTimeout: Duration
    /// How long a write may make no progress before the client is dropped.
    public var writeTimeout: Duration
    /// How long a closing connection keeps draining input so the client reads our last response.
    public var lingerTimeout: Duration
    /// Open connections beyond this are answered `503` and closed.
    public var maxConnections: Int
    /// How long shutdown waits for in-flight requests before closing everything.
    public var shutdownGracePeriod: Duration
    /// The `listen` backlog.
    public var backlog: Int32
    /// Whether a loop calls `sched_yield` after each batch of events (see ``EventLoop``); off only pays on
    /// cores dedicated to the server.
    public var yieldAfterBatch: Bool
    /// Header fields added to every response the server writes (e.g. `X-Pier-Demo: true`), after `Server`.
    public var extraHeaders: [(name: String, value: String)] = []
    /// What bounds the WebSockets routes upgrade to.
    public var webSockets = WebSocketSettings()
    /// The route answered even when every connection is taken (the liveness check a container runtime or proxy asks):
    /// up to ``livenessReserve`` connections beyond ``maxConnections`` are accepted, each answering this path once
    /// and everything else `503`, then closed; one silent for 2 s is dropped, so idle connections cannot keep the
    /// reserve for long. `nil`: none beyond the cap.
    public var livenessPath: String?
    public var livenessReserve = 32

    /// Open WebSockets at most: ``WebSocketSettings/maxSockets``, but never more than four fifths of
    /// ``maxConnections`` — a fifth of the connections always stays for HTTP (sign-ups, REST, the health checks).
    public var webSocketCap: Int { min(webSockets.maxSockets, maxConnections - maxConnections / 5) }

    public init(
        host: String = "0.0.0.0", port: Int = 8080, eventLoopCount: Int? = nil, limits: ParserLimits = ParserLimits(),
        headerReadTimeout: Duration = .seconds(10), bodyReadTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(60), writeTimeout: Duration = .seconds(30),
        lingerTimeout: Duration = .seconds(2), maxConnections: Int = 10_000,
        shutdownGracePeriod: Duration = .seconds(8), backlog: Int32 = 4096, yieldAfterBatch: Bool = true
    ) {
        self.host = host
        self.port = port
        self.eventLoopCount = max(1, eventLoopCount ?? Int(pier_available_cpus()))
        self.limits = limits
        self.headerReadTimeout = headerReadTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.lingerTimeout = lingerTimeout
        self.maxConnections = maxConnections
        self.shutdownGracePeriod = shutdownGracePeriod
        self.backlog = backlog
        self.yieldAfterBatch = yieldAfterBatch
    }
}

extension Duration {
    /// Whole nanoseconds, for comparing with the monotonic clock.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
    }
}
