import CSystem
import Glibc

/// A socket after its `101` (RFC 6455): frames in and out, the closing handshake and its timeouts, driven by its event
/// loop's thread only. The frame rules are the parser's and the assembler's (``WebSocketFrameParser``,
/// ``WebSocketMessages``) and where the socket stands is its ``WebSocketSession``; this is their I/O.
final class WebSocketConnection {
    /// The epoll token's mark for a WebSocket (its descriptor in the low bits): the loop finds the socket among its
    /// WebSockets without asking its HTTP connections.
    static let tokenMark: UInt64 = 1 << 32

    /// What an idle socket's input and output buffers may each keep of their capacity.
    private static let idleBufferCapacity = 4096

    let fd: Int32
    let serial: UInt64
    unowned let loop: EventLoop
    let session: WebSocketSession
    private var input: InputBuffer
    private var output: OutputQueue
    private var interest = PIER_EPOLLIN
    private var peerClosed = false
    private var closed = false
    /// Both close frames are through and ours is written: our side is shut, the peer's end is awaited until then.
    private var lingeringUntil: UInt64?
    private var lastWriteProgress: UInt64

    init(_ upgraded: consuming UpgradedSocket, loop: EventLoop, session: WebSocketSession) {
        fd = upgraded.fd
        serial = upgraded.serial
        self.loop = loop
        self.session = session
        input = upgraded.input
        output = upgraded.output
        lastWriteProgress = loop.now
    }

    var token: UInt64 { UInt64(UInt32(bitPattern: fd)) | Self.tokenMark }

    /// Its events come with the WebSocket's token from now on.
    func register() {
        loop.modify(fd, events: interest, token: token)
    }

    /// Frames the client sent right after its request are already buffered; the `101` waits to be written.
    func start() {
        processFrames()
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
        if count > 0 {
            // Lingering, what still arrives is read and dropped.
            guard lingeringUntil == nil else { return }
            input.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            processFrames()
        } else if count == 0 {
            // The peer's end: after the closing handshake (lingering), or without one — the handler then hears a lost
            // connection.
            peerClosed = true
            close()
        } else {
            let error = errno
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return }
            close()
        }
    }

    // MARK: - Frames

    /// Reads every whole frame buffered: messages to the handler, pings answered, the closing handshake.
    private func processFrames() {
        reading: while true {
            if case .finished = session.state { break }
            switch session.frames.next(from: &input) {
            case .needMore:
                break reading
            case .error(let code, let reason):
                fail(code, reason)
                break reading
            case .frame(let frame, _):
                if frame.opcode == .ping || frame.opcode == .pong, session.isOpen, !session.takeControlFrame(now: loop.now) {
                    fail(.policyViolation, "too many pings")
                    break reading
                }
                let event = session.messages.receive(frame)
                session.messageStartedAt = session.messages.isAssembling ? (session.messageStartedAt ?? loop.now) : nil
                guard let event else { continue }
                switch event {
                case .text(let text):
                    session.lastHeard = loop.now
                    received(.text(text))
                case .binary(let bytes):
                    session.lastHeard = loop.now
                    received(.binary(bytes))
                case .ping(let payload):
                    session.lastHeard = loop.now
                    if session.isOpen { pong(payload) }
                case .pong:
                    break
                case .close(let code, _):
                    if session.isOpen {
                        // Echo the peer's code (none for none), then close: the server closes the TCP connection first.
                        // The echo counts against the output bound like any frame: past it the connection just ends.
                        let echo = code.map { WebSocketFrame.close($0) }?.bytes ?? WebSocketFrame(opcode: .close, payload: []).bytes
                        guard output.pending + echo.count <= session.settings.maxQueuedBytes else {
                            session.tellClosed(code ?? .noStatus)
                            close()
                            return
                        }
                        output.bytes.append(contentsOf: echo)
                        loop.shared.metrics.webSocketClosed(code ?? .normal)
                    }
                    session.tellClosed(code ?? .noStatus)
                    session.state = .finished
                    loop.sweepEveryTick(self)
                case .error(let code, let reason):
                    fail(code, reason)
                    break reading
                }
            }
        }
        if input.isEmpty, input.storage.capacity > Self.idleBufferCapacity { input = InputBuffer() }
        flush()
    }

    /// Answers a ping: at once when nothing else waits to be read, else owed (only the latest ping's pong is kept) and
    /// sent when the output drains.
    private func pong(_ payload: [UInt8]) {
        guard output.pending == 0 else {
            session.owedPong = payload
            return
        }
        output.bytes.append(contentsOf: WebSocketFrame(opcode: .pong, payload: payload).bytes)
    }

    /// A message for the handler: only while open (after our close frame the peer's messages are dropped).
    private func received(_ message: WebSocketMessage) {
        guard session.isOpen else { return }
        loop.shared.metrics.webSocketMessage(incoming: true)
        session.handler?.received(message, on: session.socket)
    }

    /// The peer broke a rule: close with `code` and drop the connection once that is written.
    private func fail(_ code: WebSocketCloseCode, _ reason: String) {
        loop.shared.logger.debug("closing a WebSocket", metadata: ["code": "\(code)", "why": "\(reason)"])
        // After our own close frame the peer's broken frame ends the wait; the close is already counted.
        if session.isOpen {
            output.bytes.append(contentsOf: WebSocketFrame.close(code, reason: reason).bytes)
            loop.shared.metrics.webSocketClosed(code)
        }
        session.tellClosed(code)
        session.state = .finished
        loop.sweepEveryTick(self)
    }

    /// Queues an encoded frame unless the socket is closing; a reader that let more than the bound pile up is closed
    /// (`1008`) instead — its queue is never grown further.
    func send(_ frame: [UInt8]) {
        guard session.isOpen else { return }
        guard output.pending + frame.count <= session.settings.maxQueuedBytes else {
            close(.policyViolation, reason: "the client does not read what it is sent")
            return
        }
        output.bytes.append(contentsOf: frame)
        loop.shared.metrics.webSocketMessage(incoming: false)
        flush()
    }

    /// Starts the closing handshake: our close frame, the handler told, then the peer's close awaited for the close timeout.
    func close(_ code: WebSocketCloseCode, reason: String) {
        guard session.isOpen else { return }
        output.bytes.append(contentsOf: WebSocketFrame.close(code, reason: reason).bytes)
        loop.shared.metrics.webSocketClosed(code)
        session.state = .closeSent(at: loop.now)
        loop.sweepEveryTick(self)
        session.tellClosed(code)
        flush()
    }

    // MARK: - Writing

    private func flush() {
        var progressed = false
        let written = output.write(to: fd, progressed: &progressed)
        if progressed { lastWriteProgress = loop.now }
        switch written {
        case .failed:
            close()
        case .blocked:
            updateInterest()
        case .all:
            // An idle socket keeps little: a large buffer left by one big message is given back.
            output.written(keeping: Self.idleBufferCapacity)
            outputWritten()
        }
    }

    /// Everything queued is written.
    private func outputWritten() {
        if case .finished = session.state, lingeringUntil == nil {
            // Both close frames are through: the socket leaves the counts; half-close and let the peer close (or the
            // linger timeout).
            release()
            startLingering()
            return
        }
        // Our close frame is out: the peer's answer is awaited from now (a slow reader had it queued until now).
        if case .closeSent = session.state { session.state = .closeSent(at: loop.now) }
        if let payload = session.owedPong {
            session.owedPong = nil
            if session.isOpen {
                output.bytes.append(contentsOf: WebSocketFrame(opcode: .pong, payload: payload).bytes)
                flush()
                return
            }
        }
        updateInterest()
    }

    /// Our side is shut for writing; input is drained until the peer's end (or the linger timeout), so that closing
    /// never resets a connection whose last frames the peer has not read.
    private func startLingering() {
        if peerClosed {
            close()
            return
        }
        Glibc.shutdown(fd, Int32(SHUT_WR))
        lingeringUntil = loop.now &+ loop.shared.configuration.lingerTimeout.nanoseconds
        input = InputBuffer()
        updateInterest()
    }

    private func updateInterest() {
        // Frames are parsed as they arrive and one longer than the bound is refused from its header, so reading never
        // stops.
        var wanted: UInt32 = peerClosed ? 0 : PIER_EPOLLIN
        if output.pending > 0 { wanted |= PIER_EPOLLOUT }
        if wanted != interest {
            interest = wanted
            loop.modify(fd, events: wanted, token: token)
        }
    }

    // MARK: - Timeouts, shutdown, close

    func checkTimeouts() {
        let now = loop.now
        if output.pending > 0 {
            if now &- lastWriteProgress > loop.shared.configuration.writeTimeout.nanoseconds { close() }
            return
        }
        if let until = lingeringUntil {
            if now >= until { close() }
            return
        }
        switch session.state {
        case .open:
            if now &- session.lastHeard > session.settings.idleTimeout.nanoseconds {
                close(.normal, reason: "idle")
            } else if let started = session.messageStartedAt, now &- started > session.settings.messageTimeout.nanoseconds {
                close(.policyViolation, reason: "a message was not finished in time")
            }
        case .closeSent(let at):
            if now &- at > session.settings.closeTimeout.nanoseconds { close() }
        case .finished:
            break
        }
    }

    /// Shutdown: the socket is closed with `1001` (the client reconnects elsewhere).
    func shutdownRequested() {
        close(.goingAway, reason: "the server is shutting down")
    }

    /// The connection ends: the handler is told if it was not, and the socket leaves the counts and the loop.
    func close() {
        guard !closed else { return }
        closed = true
        session.tellClosed(nil)
        release()
        loop.remove(self)
    }

    private func release() {
        guard !session.released else { return }
        session.released = true
        loop.shared.webSockets.release(session.socket.client)
    }
}
