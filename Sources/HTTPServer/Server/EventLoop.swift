import CSystem
import Glibc
import Logging
import Metrics
import Synchronization

/// One thread running `epoll_wait`, owning the connections it accepted.
///
/// Everything but ``execute(_:)`` runs on the loop's own thread, so connection state needs no locks. Work from
/// other threads (an async handler's response, shutdown) arrives through the inbox and an eventfd wake-up.
final class EventLoop: @unchecked Sendable {
    private static let listenerToken = UInt64.max
    private static let wakeToken = UInt64.max - 1
    private static let readChunk = 64 * 1024

    let index: Int
    let shared: ServerShared
    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Mutex<[@Sendable () -> Void]>([])
    /// The loop's thread (`pthread_t`), set when it starts running: work from it needs no hop through the inbox.
    private let thread = Atomic<UInt>(0)

    // Loop-confined state.
    /// HTTP/1.1 connections; each tick checks their timeouts.
    private var connections = SocketTable<Connection>()
    /// Sockets switched to WebSocket (their epoll token carries ``WebSocketConnection/tokenMark``).
    private var webSockets = SocketTable<WebSocketConnection>()
    /// Closing WebSockets, checked every tick (their close and linger timeouts are seconds).
    private var closingWebSockets: [Int32: WebSocketConnection] = [:]
    /// Open WebSockets, checked a slice a tick (all within ``webSocketSweepTicks``): their only timeout (silence, 90 s)
    /// needs no tick's precision — at 20,000 sockets, checking each four times a second cost more than their
    /// heartbeats. A socket that closed or began closing since is dropped when its turn comes.
    private var webSocketSweep: [(fd: Int32, serial: UInt64)] = []
    private var webSocketCursor = 0
    private let webSocketSweepTicks: Int
    private(set) var now: UInt64 = MonotonicClock.now()
    private(set) var date = HTTPDate()
    private(set) var shuttingDown = false
    private var forceCloseAt: UInt64 = .max
    private var nextSerial: UInt64 = 0
    private var requestsSeen: UInt64 = 0
    private var acceptPausedUntil: UInt64 = 0
    private var listening = false
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Closed connections' buffers, for the next ones accepted.
    var spareBuffers = BufferPool()
    /// This loop's metrics of each route, by the router's slot (made on a route's first answer).
    private var routeMetrics: [RouteMetrics?]
    /// The metrics of the server's own answers (`invalid`, `timeout`, …) and of `405`s, by name.
    private var unroutedMetrics: [String: RouteMetrics] = [:]
    private let tickNanoseconds: UInt64

    init(index: Int, shared: ServerShared) throws {
        self.index = index
        self.shared = shared
        routeMetrics = Array(repeating: nil, count: shared.router.slots)
        epollFD = pier_epoll_create()
        guard epollFD >= 0 else { throw Socket.Failure(call: "epoll_create1", errno: errno) }
        wakeFD = pier_eventfd()
        guard wakeFD >= 0 else { throw Socket.Failure(call: "eventfd", errno: errno) }
        readBuffer = .allocate(byteCount: Self.readChunk, alignment: 16)
        let configuration = shared.configuration
        let shortest = [configuration.headerReadTimeout, configuration.idleTimeout, configuration.writeTimeout,
                        configuration.bodyReadTimeout, configuration.lingerTimeout].map(\.nanoseconds).min() ?? 1_000_000_000
        // Timeouts are checked by a periodic sweep; a quarter of the shortest timeout keeps them accurate
        // to within 25 % while costing nothing measurable at 10,000 connections.
        tickNanoseconds = min(250_000_000, max(5_000_000, shortest / 4))
        // Open WebSockets: each checked within a quarter of their idle timeout, at most every 5 s.
        let idle = configuration.webSockets.idleTimeout.nanoseconds / 4
        webSocketSweepTicks = Int(max(1, min(5_000_000_000, idle) / tickNanoseconds))
        _ = pier_epoll_ctl(epollFD, PIER_EPOLL_CTL_ADD, wakeFD, PIER_EPOLLIN, Self.wakeToken)
    }

    deinit {
        readBuffer.deallocate()
        Glibc.close(epollFD)
        Glibc.close(wakeFD)
    }

    /// Runs `work` on the loop thread soon. Safe from any thread.
    func execute(_ work: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.append(work) }
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    /// Whether the caller runs on this loop's thread.
    var isCurrent: Bool { thread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Runs `work` on the loop: now when called there, else through the inbox (``execute(_:)``).
    func perform(_ work: @escaping @Sendable () -> Void) {
        isCurrent ? work() : execute(work)
    }

    /// The WebSocket on `fd`, if it is still the one with `serial` (a socket closed and its descriptor reused is not).
    func webSocketConnection(_ fd: Int32, serial: UInt64) -> WebSocketConnection? {
        guard let connection = webSockets[fd], connection.serial == serial else { return nil }
        return connection
    }

    /// Starts accepting on the shared listener; called on the loop thread before the first wait.
    private func startListening() {
        // EPOLLEXCLUSIVE: one loop is woken per incoming connection instead of all of them.
        listening = pier_epoll_ctl(epollFD, PIER_EPOLL_CTL_ADD, shared.listenFD, PIER_EPOLLIN | PIER_EPOLLEXCLUSIVE, Self.listenerToken) == 0
    }

    private func stopListening() {
        if listening {
            _ = pier_epoll_ctl(epollFD, PIER_EPOLL_CTL_DEL, shared.listenFD, 0, 0)
            listening = false
        }
    }

    /// The loop body; returns when shutdown has closed every connection.
    func run() {
        thread.store(UInt(pthread_self()), ordering: .releasing)
        startListening()
        var tokens = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        var nextTick = now &+ tickNanoseconds
        let timeoutMilliseconds = Int32(max(1, tickNanoseconds / 1_000_000))
        while true {
            let count = tokens.withUnsafeMutableBufferPointer { tokenBuffer in
                events.withUnsafeMutableBufferPointer { eventBuffer in
                    pier_epoll_wait(epollFD, tokenBuffer.baseAddress, eventBuffer.baseAddress, 256, timeoutMilliseconds)
                }
            }
            now = MonotonicClock.now()
            if count > 0 {
                for i in 0..<Int(count) {
                    handle(token: tokens[i], events: events[i])
                }
                // Give the CPU up after each batch: when a loop shares a core with its clients (Caddy, the
                // database, a benchmark's load generator) a loop that always has work would otherwise hold
                // the core for a whole scheduler slice and add milliseconds to the tail. Uncontended, the
                // call returns at once.
                if shared.configuration.yieldAfterBatch { sched_yield() }
            }
            if now >= nextTick {
                nextTick = now &+ tickNanoseconds
                tick()
            }
            if shuttingDown && connections.isEmpty && webSockets.isEmpty && shared.listenerClosed && inbox.withLock({ $0.isEmpty }) { break }
        }
        stopListening()
    }

    private func handle(token: UInt64, events: UInt32) {
        switch token {
        case Self.listenerToken:
            acceptConnections()
        case Self.wakeToken:
            var value: UInt64 = 0
            _ = Glibc.read(wakeFD, &value, 8)
            let work = inbox.withLock { pending -> [@Sendable () -> Void] in
                let taken = pending
                pending.removeAll(keepingCapacity: true)
                return taken
            }
            for item in work { item() }
        default:
            let fd = Int32(truncatingIfNeeded: token)
            if token & WebSocketConnection.tokenMark == 0 {
                connections[fd]?.handle(events: events)
            } else {
                webSockets[fd]?.handle(events: events)
            }
        }
    }

    // MARK: - Accepting

    private func acceptConnections() {
        // `listening` is false once shutdown began, even for a listener event already in this batch.
        guard listening, now >= acceptPausedUntil else { return }
        for _ in 0..<64 {
            let (fd, peer) = acceptOne()
            if fd < 0 {
                let error = errno
                if error == EAGAIN || error == EWOULDBLOCK { return }
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    // Out of descriptors: stop accepting briefly instead of spinning on a readable listener.
                    shared.logger.warning("accept failed, pausing accepts", metadata: ["errno": "\(error)"])
                    pauseAccepting()
                    return
                }
                continue
            }
            guard let livenessOnly = admit() else {
                refuse(fd)
                continue
            }
            // Round-robin over the loops: the loop that wins the accept would otherwise take a whole burst
            // of connections (a benchmark's 50 all landed on one loop, leaving the other core idle).
            let target = shared.nextLoop.wrappingAdd(1, ordering: .relaxed).oldValue % shared.loops.count
            if target == index {
                adopt(fd, peer: peer, livenessOnly: livenessOnly)
            } else {
                let loop = shared.loops[target]
                loop.execute { loop.adopt(fd, peer: peer, livenessOnly: livenessOnly) }
            }
        }
    }

    /// Takes ownership of an accepted socket. During shutdown it is served like the others: what it already
    /// sent is answered, then it is closed.
    private func adopt(_ fd: Int32, peer: IPAddress, livenessOnly: Bool) {
        nextSerial &+= 1
        let connection = Connection(fd: fd, serial: nextSerial, peer: peer, loop: self, livenessOnly: livenessOnly)
        connections[fd] = connection
        connection.start()
        if shuttingDown, connections[fd] === connection { connection.shutdownRequested() }
    }

    /// Takes every connection the kernel has completed but nobody accepted yet (called once, by the last loop
    /// to stop listening, just before the listener closes: closing it would reset them).
    private func drainAcceptQueue() {
        while true {
            let (fd, peer) = acceptOne()
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            guard let livenessOnly = admit() else {
                refuse(fd)
                continue
            }
            adopt(fd, peer: peer, livenessOnly: livenessOnly)
        }
    }

    /// Counts an accepted connection: `false` within the cap, `true` in the liveness reserve beyond it (it answers the
    /// liveness path only), `nil` past both (refused).
    private func admit() -> Bool? {
        let cap = shared.configuration.maxConnections
        let reserve = shared.configuration.livenessPath == nil ? 0 : shared.configuration.livenessReserve
        guard let count = shared.openConnections.admit(limit: cap + reserve) else { return nil }
        return count > cap
    }

    /// One non-blocking `accept4` on the listener: the socket (negative with `errno` set when none) and its peer.
    private func acceptOne() -> (fd: Int32, peer: IPAddress) {
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let fd = withUnsafeMutableBytes(of: &bytes) { pier_accept(shared.listenFD, $0.baseAddress?.assumingMemoryBound(to: UInt8.self)) }
        return (fd, IPAddress(bytes: bytes))
    }

    private func pauseAccepting() {
        stopListening()
        acceptPausedUntil = now &+ 100_000_000
    }

    /// Loop-confined, built on first use.
    private lazy var refusal: [UInt8] = {
        var bytes: [UInt8] = []
        let response = HTTPResponse.error(.serviceUnavailable, "server is at its connection limit", headers: ["Retry-After": "1"])
        var date = HTTPDate()
        date.refresh()
        ResponseEncoder.encode(
            response, into: &bytes, date: date.bytes, keepAlive: false, http10: false, omitBody: false, fixed: shared.fixedHeaders)
        return bytes
    }()

    /// Answers `503` on a connection over the cap and closes it. The request, if already sent, is drained
    /// first so that the close is a FIN rather than a reset that could destroy our answer.
    private func refuse(_ fd: Int32) {
        shared.metrics.refusedConnections.increment()
        _ = Glibc.recv(fd, readBuffer.baseAddress, readBuffer.count, Int32(MSG_DONTWAIT))
        refusal.withUnsafeBytes { bytes in
            _ = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        }
        Glibc.shutdown(fd, Int32(SHUT_WR))
        Glibc.close(fd)
    }

    // MARK: - Connection bookkeeping (called by Connection)

    func register(_ fd: Int32, events: UInt32) {
        _ = pier_epoll_ctl(epollFD, PIER_EPOLL_CTL_ADD, fd, events, UInt64(fd))
    }

    func modify(_ fd: Int32, events: UInt32) {
        _ = pier_epoll_ctl(epollFD, PIER_EPOLL_CTL_MOD, fd, events, UInt64(fd))
    }

    func modify(_ fd: Int32, events: UInt32, token: UInt64) {
        _ = pier_epoll_ctl(epollFD, PIER_EPOLL_CTL_MOD, fd, events, token)
    }

    func remove(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        connections[connection.fd] = nil
        closeSocket(connection.fd)
    }

    func remove(_ connection: WebSocketConnection) {
        guard webSockets[connection.fd] === connection else { return }
        webSockets[connection.fd] = nil
        closingWebSockets[connection.fd] = nil
        closeSocket(connection.fd)
    }

    private func closeSocket(_ fd: Int32) {
        // Closing the descriptor takes it out of the epoll set (no socket is duplicated): no EPOLL_CTL_DEL first.
        Glibc.close(fd)
        shared.openConnections.release()
    }

    /// An HTTP connection whose socket switched protocols (``ProtocolUpgrade``) leaves the loop without closing it:
    /// the socket's next connection is adopted next.
    func release(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        connections[connection.fd] = nil
    }

    /// Takes a socket switched to WebSocket, swept slowly while open.
    func adopt(_ connection: WebSocketConnection) {
        webSockets[connection.fd] = connection
        webSocketSweep.append((connection.fd, connection.serial))
        connection.register()
    }

    /// Delivers an async handler's response to the connection that asked, if it is still open.
    func deliver(_ response: HTTPResponse, to fd: Int32, serial: UInt64, context: Connection.RequestContext) {
        now = MonotonicClock.now()
        guard let connection = connections[fd], connection.serial == serial else { return }
        connection.complete(response, context: context)
    }

    /// Runs a deferred handler as a task off the loop and hands its response back to the loop.
    func runDeferred(
        _ body: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse, request: HTTPRequest, fd: Int32,
        serial: UInt64, context: Connection.RequestContext
    ) {
        Task {
            let response: HTTPResponse
            do {
                response = try await body(request)
            } catch {
                response = Self.response(for: error, route: context.route, request: request.id, logger: shared.logger)
            }
            execute { self.deliver(response, to: fd, serial: serial, context: context) }
        }
    }

    /// Maps a thrown error to a response: its own status if it has one, otherwise a logged `500`.
    static func response(for error: any Error, route: String, request: UInt64, logger: Logger) -> HTTPResponse {
        if let convertible = error as? any HTTPErrorConvertible {
            return convertible.httpError.response
        }
        logger.error("handler failed", metadata: ["route": "\(route)", "request_id": "\(request)", "error": "\(error)"])
        return .error(.internalServerError, "internal server error")
    }

    /// A number for the next request on this loop, unique in the process (the loop's index in the top bits).
    func nextRequestID() -> UInt64 {
        requestsSeen &+= 1
        return UInt64(index) << 48 | (requestsSeen & 0xFFFF_FFFF_FFFF)
    }

    /// Counts an answer and its latency for its route: a routed request finds its route's metrics by the router's slot
    /// (an array index), the server's own answers by name.
    func record(_ context: Connection.RequestContext, status: Int, seconds: Double) {
        let routed = context.slot >= 0
        let metrics: RouteMetrics
        if let held = routed ? routeMetrics[context.slot] : unroutedMetrics[context.route] {
            metrics = held
        } else {
            metrics = RouteMetrics(route: context.route, server: shared.metrics)
            if routed { routeMetrics[context.slot] = metrics } else { unroutedMetrics[context.route] = metrics }
        }
        metrics.record(status: status, seconds: seconds)
    }

    // MARK: - Timers and shutdown

    private func tick() {
        date.refresh()
        if !listening && !shuttingDown && now >= acceptPausedUntil { startListening() }
        if now >= forceCloseAt {
            for connection in connections.values { connection.close() }
            for connection in webSockets.values { connection.close() }
            return
        }
        for connection in connections.values { connection.checkTimeouts() }
        for connection in Array(closingWebSockets.values) { connection.checkTimeouts() }
        sweepWebSockets()
    }

    /// A WebSocket that started closing is swept every tick (its close and linger timeouts are seconds).
    func sweepEveryTick(_ connection: WebSocketConnection) {
        guard webSockets[connection.fd] === connection else { return }
        closingWebSockets[connection.fd] = connection
    }

    /// This tick's slice of the open WebSockets.
    private func sweepWebSockets() {
        var budget = (webSocketSweep.count + webSocketSweepTicks - 1) / webSocketSweepTicks
        while budget > 0, !webSocketSweep.isEmpty {
            if webSocketCursor >= webSocketSweep.count { webSocketCursor = 0 }
            let entry = webSocketSweep[webSocketCursor]
            if let connection = webSockets[entry.fd], connection.serial == entry.serial, closingWebSockets[entry.fd] == nil {
                connection.checkTimeouts()
                webSocketCursor += 1
            } else {
                // Closed, or swept every tick now: its place goes to the last entry.
                webSocketSweep.swapAt(webSocketCursor, webSocketSweep.count - 1)
                webSocketSweep.removeLast()
            }
            budget -= 1
        }
    }

    /// Stops accepting; every connection answers what it already received and then closes (see
    /// ``Connection/shutdownRequested()``). The last loop to stop listening takes what is left in the accept
    /// queue and closes the listener.
    func beginShutdown() {
        guard !shuttingDown else { return }
        shuttingDown = true
        stopListening()
        now = MonotonicClock.now()
        forceCloseAt = now &+ shared.configuration.shutdownGracePeriod.nanoseconds
        for connection in connections.values { connection.shutdownRequested() }
        for connection in webSockets.values { connection.shutdownRequested() }
        if shared.loopsStoppedListening.add(1, ordering: .acquiringAndReleasing).newValue == shared.loops.count {
            drainAcceptQueue()
            shared.closeListener()
        }
    }
}
