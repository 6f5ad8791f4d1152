/// What bounds the server's WebSockets: a socket's memory, its silence, its control frames, and how many there are.
public struct WebSocketSettings: Sendable {
    /// A message (all its fragments) longer than this closes the socket with `1009`.
    public var maxMessageBytes: Int
    /// Output queued for a reader that falls behind — messages, pongs and close frames alike: past this the socket is
    /// closed with `1008`, never buffered further.
    public var maxQueuedBytes: Int
    /// A socket that sends no whole message and no ping for this long is closed (`1000`, "idle"); Realtime's clients
    /// send a heartbeat every 25–30 s. Other frames (a pong, a fragment) do not keep a socket open.
    public var idleTimeout: Duration
    /// A message begun (its first fragment) must end within this, or the socket is closed with `1008`: a fragment held
    /// open with empty continuations would otherwise keep its bytes forever.
    public var messageTimeout: Duration
    /// How long a socket that was sent a close frame may take to answer it before the connection is dropped.
    public var closeTimeout: Duration
    /// Pings and pongs a socket may send each second, sustained, and at once; past it the socket is closed with
    /// `1008` (each ping costs a pong; no client needs more than one every few seconds).
    public var controlFramesPerSecond: Int
    public var controlFrameBurst: Int
    /// Open sockets in all; past it an upgrade is `503`. Never more than four fifths of the server's connection cap
    /// are given to sockets, whatever this says (``ServerConfiguration/webSocketCap``): HTTP keeps the rest.
    public var maxSockets: Int
    /// Open sockets one client may hold (as the route counts it); past it an upgrade is `429`.
    public var maxSocketsPerClient: Int
    /// Open sockets the clients of one network may hold together (IPv4 /24, IPv6 /56: what one attacker can have
    /// many addresses in); past it an upgrade is `429`.
    public var maxSocketsPerNetwork: Int

    public init(
        maxMessageBytes: Int = 64 * 1024, maxQueuedBytes: Int = 256 * 1024, idleTimeout: Duration = .seconds(90),
        messageTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(5), controlFramesPerSecond: Int = 5,
        controlFrameBurst: Int = 20, maxSockets: Int = 8_000, maxSocketsPerClient: Int = 100, maxSocketsPerNetwork: Int = 1_000
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.maxQueuedBytes = maxQueuedBytes
        self.idleTimeout = idleTimeout
        self.messageTimeout = messageTimeout
        self.closeTimeout = closeTimeout
        self.controlFramesPerSecond = controlFramesPerSecond
        self.controlFrameBurst = controlFrameBurst
        self.maxSockets = maxSockets
        self.maxSocketsPerClient = maxSocketsPerClient
        self.maxSocketsPerNetwork = maxSocketsPerNetwork
    }

    /// The network a client counts in for ``maxSocketsPerNetwork``.
    static func network(of client: IPAddress) -> IPAddress {
        client.masked(to: client.isIPv4 ? 120 : 56)
    }
}
