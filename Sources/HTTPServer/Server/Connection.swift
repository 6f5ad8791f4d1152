import CSystem
import Glibc
import Logging

/// One client connection: its buffers, parser and state, driven by its event loop's thread only.
///
/// Requests are answered strictly in order. An async handler pauses parsing of further pipelined requests
/// until its response is back, which keeps responses ordered without a reorder queue.
final class Connection {
    /// What is needed to finish a request once its handler has answered.
    struct RequestContext: Sendable {
        let route: String
        /// The route's slot in the router (``Router/Match``), or -1 for the server's own answers (`invalid`, `timeout`).
        var slot = -1
        let isHead: Bool
        let http10: Bool
        let keepAlive: Bool
        /// The client said it sends nothing more (`Connection: close`, or HTTP/1.0 without keep-alive).
        var clientCloses = false
        let startedAt: UInt64
        /// The route is public: the answer carries `Access-Control-Allow-Origin: *`.
        var cors = false

        /// For answers the server makes itself before closing (a malformed request, a timeout).
        static func closing(route: String) -> RequestContext {
            RequestContext(route: route, isHead: false, http10: false, keepAlive: false, startedAt: MonotonicClock.now())
        }
    }

    enum Phase {
        /// Reading and answering requests.
        case reading
        /// An async handler is running; later requests wait in the input buffer.
        case awaitingHandler
        /// The last response is queued; close once it is written.
        case closingAfterWrite
        /// Our side is shut for writing; input is drained until EOF so the client reads the response.
        case lingering(until: UInt64)
        /// Switched to another protocol after a `101` (``ProtocolUpgrade``): the socket is another connection's now.
        case switched
    }

    /// A connection of the liveness reserve must send its request within this: a health check asks at once, and a
    /// silent one would keep the reserve from the next.
    private static let reserveTimeout = Duration.seconds(2)

    /// Stop reading (and answering) while this much output waits for a client that does not read.
    private static let outputHighWater = 256 * 1024

    let fd: Int32
    let serial: UInt64
    /// The socket peer, handed to every request of this connection.
    private let peer: IPAddress
    private unowned let loop: EventLoop
    private var input = InputBuffer()
    private var parser: RequestParser
    private var output = OutputQueue()
    private var phase = Phase.reading
    private var interest: UInt32 = 0
    private var peerClosed = false
    private var closed = false
    /// The last answer went to a client that said it sends nothing more: once written, the socket is closed at once
    /// unless more of its bytes wait (``startLingering()``).
    private var closesWithoutLingering = false
    /// The last read took less than it could: the socket held nothing more then (nginx's `c->read->ready` is false).
    private var drained = false
    /// Parsing stopped because too much output is queued; resume once it drains.
    private var pausedForOutput = false
    private var requestStartedAt: UInt64? = nil
    private var lastActivity: UInt64
    private var lastWriteProgress: UInt64

    /// Accepted beyond the connection cap, in the liveness reserve: answers the liveness path once, anything else `503`.
    private let livenessOnly: Bool

    init(fd: Int32, serial: UInt64, peer: IPAddress, loop: EventLoop, livenessOnly: Bool = false) {
        self.fd = fd
        self.serial = serial
        self.peer = peer
        self.loop = loop
        self.livenessOnly = livenessOnly
        parser = RequestParser(limits: loop.shared.configuration.limits)
        input = InputBuffer(reusing: loop.spareBuffers.take())
        output.bytes = loop.spareBuffers.take()
        lastActivity = loop.now
        lastWriteProgress = loop.now
    }

    private var pendingOutput: Int { output.pending }

    private var maxBufferedInput: Int {
        let limits = parser.limits
        return limits.maxRequestLineBytes + limits.maxHeaderBytes + 64 * 1024
    }

    /// Registers the socket and reads what already arrived: a client sends its request as soon as it is connected, so
    /// it is often there when the connection is accepted, and answering it now saves a turn of the loop.
    func start() {
        interest = PIER_EPOLLIN
        loop.register(fd, events: interest)
        readAvailable()
    }

    // MARK: - Events

    func handle(events: UInt32) {
        if events & (PIER_EPOLLERR | PIER_EPOLLHUP) != 0 && events & PIER_EPOLLIN == 0 {
            close()
            return
        }
        if events & PIER_EPOLLOUT != 0 {
            flush()
            if closed { return }
        }
        if events & PIER_EPOLLIN != 0 {
            readAvailable()
        }
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        let count = Glibc.recv(fd, buffer.baseAddress, buffer.count, 0)
        drained = count < buffer.count
        if count > 0 {
            lastActivity = loop.now
            if case .lingering = phase { return }
            input.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if case .reading = phase {
                process()
            } else {
                updateInterest()
            }
        } else if count == 0 {
            peerClosed = true
            if case .lingering = phase {
                close()
                return
            }
            if case .reading = phase { process() } else { updateInterest() }
        } else {
            let error = errno
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return }
            close()
        }
    }

    // MARK: - Requests

    /// Parses and answers as many buffered requests as possible, then writes.
    private func process() {
        pausedForOutput = false
        parsing: while case .reading = phase {
            if pendingOutput >= Self.outputHighWater {
                pausedForOutput = true
                break
            }
            if !holdsBufferedInput { break }
            switch parser.next(from: &input) {
            case .needMore:
                break parsing
            case .continueNeeded:
                output.bytes.append(contentsOf: ResponseEncoder.continueBytes)
            case .request(var request, let keepAlive):
                requestStartedAt = nil
                request.peer = peer
                dispatch(&request, keepAlive: keepAlive && !peerClosed)
            case .error(let error):
                requestStartedAt = nil
                loop.shared.logger.debug("rejected request", metadata: ["error": "\(error)"])
                respond(.error(error.status, error.message), context: .closing(route: "invalid"))
            }
        }
        // Switched to another protocol: the socket and what was read after the request went with it.
        if case .switched = phase { return }
        if case .reading = phase, requestStartedAt == nil, holdsBufferedInput {
            requestStartedAt = loop.now
        }
        if case .reading = phase, peerClosed, pendingOutput == 0 {
            // The client finished sending and everything it asked for is answered (or was incomplete).
            close()
            return
        }
        flush()
    }

    private func dispatch(_ request: inout HTTPRequest, keepAlive: Bool) {
        let startedAt = MonotonicClock.now()
        let clientCloses = !keepAlive
        let keepAlive = keepAlive && !livenessOnly
        let (isHead, http10) = (request.method == .head, request.version == .http1_0)
        func context(route: String, slot: Int = -1, cors: Bool = false) -> RequestContext {
            RequestContext(
                route: route, slot: slot, isHead: isHead, http10: http10, keepAlive: keepAlive, clientCloses: clientCloses,
                startedAt: startedAt, cors: cors)
        }
        if livenessOnly && request.path != loop.shared.configuration.livenessPath {
            return respond(
                .error(.serviceUnavailable, "server is at its connection limit", headers: ["Retry-After": "1"]), context: context(route: "over_capacity"))
        }
        switch request.withPath({ loop.shared.router.match(request.method, pathBytes: $0) }) {
        case .notFound:
            respond(.error(.notFound, "no route for \(request.path)"), context: context(route: "unmatched"))
        case .methodNotAllowed(let allow, let route, let slot):
            respond(.error(.methodNotAllowed, "method \(request.method) is not allowed here", headers: ["Allow": allow]), context: context(route: route, slot: slot))
        case .found(let handler, let route, let cors, let parameters, let slot):
            let context = context(route: route, slot: slot, cors: cors)
            if !parameters.isEmpty { request.pathParameters = parameters }
            request.id = loop.nextRequestID()
            switch handler {
            case .immediate(let body):
                let response: HTTPResponse
                do {
                    response = try body(request)
                } catch {
                    response = EventLoop.response(for: error, route: route, request: request.id, logger: loop.shared.logger)
                }
                respond(response, context: context)
            case .deferred(let body):
                runDeferred(body, request: request, context: context)
            case .upgrade(let upgrade):
                switchProtocols(upgrade, request: request, context: context)
            case .hybrid(let answer):
                do {
                    switch try answer(request) {
                    case .response(let response):
                        respond(response, context: context)
                    case .later(let work):
                        runDeferred({ _ in try await work() }, request: request, context: context)
                    }
                } catch {
                    respond(EventLoop.response(for: error, route: route, request: request.id, logger: loop.shared.logger), context: context)
                }
            }
        }
    }

    /// Asks an upgrade route; when it switches, writes the `101` and hands the socket, with what was read after the
    /// request and the unwritten `101`, to the other protocol's connection.
    private func switchProtocols(_ upgrade: ProtocolUpgrade, request: HTTPRequest, context: RequestContext) {
        switch upgrade.answer(request, loop, context.route) {
        case .respond(let response):
            respond(response, context: context)
        case .switching(let headers, let take):
            ResponseEncoder.encode(
                HTTPResponse(status: .switchingProtocols, headers: headers), into: &output.bytes, date: loop.date.bytes, keepAlive: true,
                http10: false, omitBody: true, fixed: loop.shared.fixedHeaders, upgrade: true)
            loop.record(context, status: HTTPStatus.switchingProtocols.code, seconds: Double(MonotonicClock.now() &- context.startedAt) / 1e9)
            phase = .switched
            loop.release(self)
            // The buffers move with the socket: kept here too, the other connection's first write would copy them.
            let socket = UpgradedSocket(fd: fd, serial: serial, peer: peer, input: input, output: output)
            input = InputBuffer()
            output = OutputQueue()
            take(socket)
        }
    }

    private func runDeferred(_ body: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse, request: HTTPRequest, context: RequestContext) {
        phase = .awaitingHandler
        updateInterest()
        loop.runDeferred(body, request: request, fd: fd, serial: serial, context: context)
    }

    /// Called by the loop with an async handler's answer.
    func complete(_ response: HTTPResponse, context: RequestContext) {
        guard case .awaitingHandler = phase else { return }
        phase = .reading
        respond(response, context: context)
        if case .reading = phase {
            process()
        } else {
            flush()
        }
    }

    private func respond(_ response: HTTPResponse, context: RequestContext) {
        // Shutting down, a connection stays open while it holds requests it already sent: the last one is
        // answered with `Connection: close`.
        let keepAlive = context.keepAlive && !(loop.shuttingDown && !holdsMoreInput())
        // A large body (a cached answer) is sent from where it lies, after the head: not copied into the buffer.
        let attached = !context.isHead && response.status.allowsBody && response.body.count >= OutputQueue.attachedBodyMinimum
        ResponseEncoder.encode(
            response, into: &output.bytes, date: loop.date.bytes, keepAlive: keepAlive, http10: context.http10,
            omitBody: context.isHead || attached, fixed: loop.shared.fixedHeaders, cors: context.cors)
        if attached { output.attach(response.body) }
        let elapsed = Double(MonotonicClock.now() &- context.startedAt) / 1e9
        loop.record(context, status: response.status.code, seconds: elapsed)
        if loop.shared.logger.logLevel <= .debug {
            loop.shared.logger.debug("request", metadata: [
                "route": "\(context.route)", "status": "\(response.status.code)", "duration_ms": "\(elapsed * 1000)",
            ])
        }
        if !keepAlive {
            phase = .closingAfterWrite
            closesWithoutLingering = context.clientCloses
        }
    }

    // MARK: - Writing

    private func flush() {
        var progressed = false
        let written = output.write(to: fd, progressed: &progressed)
        if progressed { lastWriteProgress = loop.now }
        if case .failed = written {
            close()
            return
        }
        if case .all = written {
            output.written(keeping: 1 << 20)
            lastActivity = loop.now
            if case .closingAfterWrite = phase {
                startLingering()
                return
            }
            if case .reading = phase, pausedForOutput {
                // Parsing stopped at the high-water mark; the client has caught up, so continue.
                process()
                return
            }
            if case .reading = phase, peerClosed {
                close()
                return
            }
            if case .reading = phase, loop.shuttingDown, !holdsMoreInput() {
                // Everything asked before shutdown is answered (the last answer may have been encoded before it).
                startLingering()
                return
            }
        }
        updateInterest()
    }

    private func startLingering() {
        // Lingering keeps a client's late bytes from turning our close into a reset that destroys the answer it has
        // not read (RFC 9112 §9.6). A client that said it sends nothing more, with nothing more sent, needs none: the
        // close goes out as a FIN after the answer, as nginx closes — without the half-close, the wait for its FIN
        // and three more system calls per connection. Nothing more sent: nothing buffered, and the last read drained
        // the socket (nginx's rule) or reading what it holds finds nothing (``holdsMoreInput()``).
        if peerClosed || (closesWithoutLingering && !(drained ? holdsBufferedInput : holdsMoreInput())) {
            close()
            return
        }
        Glibc.shutdown(fd, Int32(SHUT_WR))
        phase = .lingering(until: loop.now &+ loop.shared.configuration.lingerTimeout.nanoseconds)
        input = InputBuffer()
        updateInterest()
    }

    private func updateInterest() {
        var wanted: UInt32 = 0
        if !peerClosed {
            switch phase {
            case .reading:
                if pendingOutput < Self.outputHighWater && input.count < maxBufferedInput { wanted |= PIER_EPOLLIN }
            case .awaitingHandler:
                if input.count < maxBufferedInput { wanted |= PIER_EPOLLIN }
            case .closingAfterWrite:
                break
            case .lingering:
                wanted |= PIER_EPOLLIN
            case .switched:
                return
            }
        }
        if pendingOutput > 0 { wanted |= PIER_EPOLLOUT }
        if wanted != interest {
            interest = wanted
            loop.modify(fd, events: wanted)
        }
    }

    // MARK: - Timeouts, shutdown, close

    func checkTimeouts() {
        let now = loop.now
        let configuration = loop.shared.configuration
        if pendingOutput > 0 {
            if now &- lastWriteProgress > configuration.writeTimeout.nanoseconds {
                loop.shared.logger.debug("write timeout", metadata: ["fd": "\(fd)"])
                close()
            }
            return
        }
        switch phase {
        case .lingering(let until):
            if now >= until { close() }
        case .reading:
            if let startedAt = requestStartedAt {
                let limit = livenessOnly ? Self.reserveTimeout : parser.isReadingBody ? configuration.bodyReadTimeout : configuration.headerReadTimeout
                if now &- startedAt > limit.nanoseconds {
                    requestStartedAt = nil
                    respond(.error(.requestTimeout, "request was not received in time"), context: .closing(route: "timeout"))
                    flush()
                }
            } else if now &- lastActivity > (livenessOnly ? Self.reserveTimeout : configuration.idleTimeout).nanoseconds {
                close()
            }
        case .awaitingHandler, .closingAfterWrite, .switched:
            break
        }
    }

    /// Shutdown: what the client already sent (buffered, or still in the socket) is answered; an idle
    /// connection is half-closed and drained until the client closes. Closing with unread data in the socket
    /// would make the kernel reset the connection, destroying answers the client has not read yet.
    func shutdownRequested() {
        guard case .reading = phase else { return }
        absorbPending()
        if !holdsBufferedInput && pendingOutput == 0 {
            startLingering()
        } else {
            process()
        }
    }

    /// Whether more of the client's bytes wait: in the buffer, or (read now) in the socket.
    /// (A client that already closed holds none: on loopback it has often read the answer and closed before this runs.)
    private func holdsMoreInput() -> Bool {
        absorbPending()
        return holdsBufferedInput
    }

    /// Whether bytes of the client's are read and not yet answered (the rest of a request, or a next one).
    private var holdsBufferedInput: Bool { !(input.isEmpty && parser.isIdle) }

    /// Reads what the socket holds into the input buffer without answering it (up to the buffer's bound).
    private func absorbPending() {
        let buffer = loop.readBuffer
        while !peerClosed && input.count < maxBufferedInput {
            let count = Glibc.recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                input.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                lastActivity = loop.now
            } else if count == 0 {
                peerClosed = true
            } else {
                if errno == EINTR { continue }
                return
            }
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        loop.spareBuffers.give(input.takeStorage())
        loop.spareBuffers.give(output.takeBytes())
        loop.remove(self)
    }
}
