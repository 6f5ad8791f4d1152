/// The switch to WebSocket, as a route's ``ProtocolUpgrade``: the handshake checked (``WebSocketHandshake``), the
/// route asked (``WebSocketDecision``), the socket counted against the caps; then `101`, and the socket goes to a
/// ``WebSocketConnection`` on the same loop.
enum WebSocketUpgrade {
    static func route(_ decide: @escaping @Sendable (HTTPRequest) throws -> WebSocketDecision) -> ProtocolUpgrade {
        ProtocolUpgrade { request, loop, route in answer(request, decide: decide, loop: loop, route: route) }
    }

    private static func answer(
        _ request: HTTPRequest, decide: @Sendable (HTTPRequest) throws -> WebSocketDecision, loop: EventLoop, route: String
    ) -> ProtocolUpgrade.Answer {
        let accept: String
        switch WebSocketHandshake.accept(request) {
        case .failure(let error): return .respond(error.response)
        case .success(let value): accept = value
        }
        guard !loop.shuttingDown else {
            return .respond(.error(.serviceUnavailable, "the server is shutting down", headers: ["Retry-After": "5"]))
        }
        let client: IPAddress
        let open: @Sendable (WebSocket) -> any WebSocketHandler
        do {
            switch try decide(request) {
            case .refuse(let response): return .respond(response)
            case .accept(let who, let make): (client, open) = (who, make)
            }
        } catch {
            return .respond(EventLoop.response(for: error, route: route, request: request.id, logger: loop.shared.logger))
        }
        let settings = loop.shared.configuration.webSockets
        if let refused = loop.shared.webSockets.admit(client, cap: loop.shared.configuration.webSocketCap, settings: settings) {
            let message = refused == .tooManyRequests ? "this client holds as many WebSockets as it may" : "the server holds as many WebSockets as it may"
            return .respond(.error(refused, message, headers: ["Retry-After": "5"]))
        }
        return .switching(headers: ["Upgrade": "websocket", "Sec-WebSocket-Accept": accept]) { upgraded in
            let socket = WebSocket(loop: loop, fd: upgraded.fd, serial: upgraded.serial, peer: upgraded.peer, client: client)
            let connection = WebSocketConnection(consume upgraded, loop: loop, session: WebSocketSession(socket: socket, settings: settings, now: loop.now))
            loop.adopt(connection)
            connection.session.handler = open(socket)
            connection.start()
        }
    }
}
