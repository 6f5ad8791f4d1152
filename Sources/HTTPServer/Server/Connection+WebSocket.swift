/// The WebSocket side of a connection (RFC 6455): the upgrade, frames in and out, the closing handshake, its timeouts.
/// The frame rules are the parser's and the assembler's (``WebSocketFrameParser``, ``WebSocketMessages``); this is
/// their I/O.
extension Connection {
    /// Checks the handshake, asks the route, counts the socket against the caps, answers `101` and switches to frames.
    func upgrade(_ request: HTTPRequest, decide: @Sendable (HTTPRequest) throws -> WebSocketDecision, context: RequestContext) {
        let accept: String
        switch WebSocketHandshake.accept(request) {
        case .failure(let error): return respond(error.response, context: context)
        case .success(let value): accept = value
        }
        guard !loop.shuttingDown else {
            return respond(.error(.serviceUnavailable, "the server is shutting down", headers: ["Retry-After": "5"]), context: context)
        }
        let client: IPAddress
        let open: @Sendable (WebSocket) -> any WebSocketHandler
        do {
            switch try decide(request) {
            case .refuse(let response): return respond(response, context: context)
            case .accept(let who, let make): (client, open) = (who, make)
            }
        } catch {
            return respond(EventLoop.response(for: error, route: context.route, request: request.id, logger: loop.shared.logger), context: context)
        }
        let settings = loop.shared.configuration.webSockets
        if let refused = loop.shared.webSockets.admit(client, cap: loop.shared.configuration.webSocketCap, settings: settings) {
            let message = refused == .tooManyRequests ? "this client holds as many WebSockets as it may" : "the server holds as many WebSockets as it may"
            return respond(.error(refused, message, headers: ["Retry-After": "5"]), context: context)
        }
        let headers: HTTPHeaders = ["Upgrade": "websocket", "Sec-WebSocket-Accept": accept]
        ResponseEncoder.encode(
            HTTPResponse(status: .switchingProtocols, headers: headers), into: &output, date: loop.date.bytes, keepAlive: true, http10: false,
            omitBody: true, fixed: loop.shared.fixedHeaders, upgrade: true)
        loop.record(route: context.route, status: HTTPStatus.switchingProtocols.code, seconds: Double(MonotonicClock.now() &- context.startedAt) / 1e9)
        let socket = WebSocket(loop: loop, fd: fd, serial: serial, peer: peer, client: client)
        let session = WebSocketSession(socket: socket, settings: settings, now: loop.now)
        phase = .webSocket
        upgraded = session
        loop.sweepSlowly(self)
        session.handler = open(socket)
        // Frames the client sent right after its request are already buffered.
        processFrames(session)
    }

    /// Reads every whole frame buffered: messages to the handler, pings answered, the closing handshake.
    func processFrames(_ session: WebSocketSession) {
        reading: while true {
            if case .finished = session.state { break }
            switch session.frames.next(from: &input) {
            case .needMore:
                break reading
            case .error(let code, let reason):
                fail(session, code, reason)
                break reading
            case .frame(let frame, _):
                if frame.opcode == .ping || frame.opcode == .pong, session.isOpen, !session.takeControlFrame(now: loop.now) {
                    fail(session, .policyViolation, "too many pings")
                    break reading
                }
                let event = session.messages.receive(frame)
                session.messageStartedAt = session.messages.isAssembling ? (session.messageStartedAt ?? loop.now) : nil
                guard let event else { continue }
                switch event {
                case .text(let text):
                    session.lastHeard = loop.now
                    received(.text(text), session)
                case .binary(let bytes):
                    session.lastHeard = loop.now
                    received(.binary(bytes), session)
                case .ping(let payload):
                    session.lastHeard = loop.now
                    if session.isOpen { pong(payload, session) }
                case .pong:
                    break
                case .close(let code, _):
                    if session.isOpen {
                        // Echo the peer's code (none for none), then close: the server closes the TCP connection first.
                        // The echo counts against the output bound like any frame: past it the connection just ends.
                        let echo = code.map { WebSocketFrame.close($0) }?.bytes ?? WebSocketFrame(opcode: .close, payload: []).bytes
                        guard pendingOutput + echo.count <= session.settings.maxQueuedBytes else {
                            session.tellClosed(code ?? .noStatus)
                            close()
                            return
                        }
                        output.append(contentsOf: echo)
                        loop.shared.metrics.webSocketClosed(code ?? .normal)
                    }
                    session.tellClosed(code ?? .noStatus)
                    session.state = .finished
                    loop.sweepEveryTick(self)
                case .error(let code, let reason):
                    fail(session, code, reason)
                    break reading
                }
            }
        }
        if input.isEmpty, input.storage.capacity > Self.idleBufferCapacity { input = InputBuffer() }
        flush()
    }

    /// Answers a ping: at once when nothing else waits to be read, else owed (only the latest ping's pong is kept) and
    /// sent when the output drains.
    private func pong(_ payload: [UInt8], _ session: WebSocketSession) {
        guard pendingOutput == 0 else {
            session.owedPong = payload
            return
        }
        output.append(contentsOf: WebSocketFrame(opcode: .pong, payload: payload).bytes)
    }

    /// A message for the handler: only while open (after our close frame the peer's messages are dropped).
    private func received(_ message: WebSocketMessage, _ session: WebSocketSession) {
        guard session.isOpen else { return }
        loop.shared.metrics.webSocketMessage(incoming: true)
        session.handler?.received(message, on: session.socket)
    }

    /// The peer broke a rule: close with `code` and drop the connection once that is written.
    private func fail(_ session: WebSocketSession, _ code: WebSocketCloseCode, _ reason: String) {
        loop.shared.logger.debug("closing a WebSocket", metadata: ["code": "\(code)", "why": "\(reason)"])
        // After our own close frame the peer's broken frame ends the wait; the close is already counted.
        if session.isOpen {
            output.append(contentsOf: WebSocketFrame.close(code, reason: reason).bytes)
            loop.shared.metrics.webSocketClosed(code)
        }
        session.tellClosed(code)
        session.state = .finished
        loop.sweepEveryTick(self)
    }

    /// Queues an encoded frame unless the socket is closing; a reader that let more than the bound pile up is closed
    /// (`1008`) instead — its queue is never grown further.
    func sendWebSocketFrame(_ frame: [UInt8]) {
        guard case .webSocket = phase, let session = upgraded, session.isOpen else { return }
        guard pendingOutput + frame.count <= session.settings.maxQueuedBytes else {
            closeWebSocket(.policyViolation, reason: "the client does not read what it is sent")
            return
        }
        output.append(contentsOf: frame)
        loop.shared.metrics.webSocketMessage(incoming: false)
        flush()
    }

    /// Starts the closing handshake: our close frame, the handler told, then the peer's close awaited for the close timeout.
    func closeWebSocket(_ code: WebSocketCloseCode, reason: String) {
        guard case .webSocket = phase, let session = upgraded, session.isOpen else { return }
        output.append(contentsOf: WebSocketFrame.close(code, reason: reason).bytes)
        loop.shared.metrics.webSocketClosed(code)
        session.state = .closeSent(at: loop.now)
        loop.sweepEveryTick(self)
        session.tellClosed(code)
        flush()
    }

    /// Called by ``flush()`` once all output is written.
    func webSocketOutputWritten(_ session: WebSocketSession) {
        if case .finished = session.state {
            // Both close frames are through: the socket leaves the counts; half-close and let the peer close (or the
            // linger timeout).
            release(session)
            phase = .closingAfterWrite
            flush()
            return
        }
        // Our close frame is out: the peer's answer is awaited from now (a slow reader had it queued until now).
        if case .closeSent = session.state { session.state = .closeSent(at: loop.now) }
        if let payload = session.owedPong {
            session.owedPong = nil
            if session.isOpen {
                output.append(contentsOf: WebSocketFrame(opcode: .pong, payload: payload).bytes)
                flush()
                return
            }
        }
        // An idle socket keeps little: a large buffer left by one big message is given back.
        if output.capacity > Self.idleBufferCapacity { output = [] }
        updateInterest()
    }

    func checkWebSocketTimeouts(_ session: WebSocketSession, now: UInt64) {
        switch session.state {
        case .open:
            if now &- session.lastHeard > session.settings.idleTimeout.nanoseconds {
                closeWebSocket(.normal, reason: "idle")
            } else if let started = session.messageStartedAt, now &- started > session.settings.messageTimeout.nanoseconds {
                closeWebSocket(.policyViolation, reason: "a message was not finished in time")
            }
        case .closeSent(let at):
            if now &- at > session.settings.closeTimeout.nanoseconds { close() }
        case .finished:
            break
        }
    }

    /// The connection is gone: the handler is told if it was not, and the socket leaves the counts.
    func webSocketEnded(_ session: WebSocketSession) {
        session.tellClosed(nil)
        release(session)
    }

    private func release(_ session: WebSocketSession) {
        guard !session.released else { return }
        session.released = true
        loop.shared.webSockets.release(session.socket.client)
    }

    /// What an idle socket's input and output buffers may each keep of their capacity.
    static var idleBufferCapacity: Int { 4096 }
}
