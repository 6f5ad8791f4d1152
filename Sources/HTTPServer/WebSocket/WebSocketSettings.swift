/// What bounds the server's WebSockets: a socket's memory, its silence, and how many there are.
public struct WebSocketSettings: Sendable {
    /// A message (all its fragments) longer than this closes the socket with `1009`.
    public var maxMessageBytes: Int
    /// Output queued for a reader that falls behind: past this the socket is closed with `1008`, never buffered further.
    public var maxQueuedBytes: Int
    /// A socket that sends nothing (no message, ping or pong) for this long is closed (`1000`, "idle"); Realtime's
    /// clients send a heartbeat every 25–30 s.
    public var idleTimeout: Duration
    /// How long a socket that was sent a close frame may take to answer it before the connection is dropped.
    public var closeTimeout: Duration
    /// Open sockets in all; past it an upgrade is `503`.
    public var maxSockets: Int
    /// Open sockets one client may hold (as the route counts it); past it an upgrade is `429`.
    public var maxSocketsPerClient: Int

    public init(
        maxMessageBytes: Int = 64 * 1024, maxQueuedBytes: Int = 256 * 1024, idleTimeout: Duration = .seconds(90),
        closeTimeout: Duration = .seconds(5), maxSockets: Int = 25_000, maxSocketsPerClient: Int = 100
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.maxQueuedBytes = maxQueuedBytes
        self.idleTimeout = idleTimeout
        self.closeTimeout = closeTimeout
        self.maxSockets = maxSockets
        self.maxSocketsPerClient = maxSocketsPerClient
    }
}
