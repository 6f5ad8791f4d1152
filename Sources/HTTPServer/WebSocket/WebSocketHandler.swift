/// What a route's sockets say to it: called on the socket's event loop, in order, never concurrently for one socket —
/// so it must not block (answer from memory, or hand slow work to a task that sends through the ``WebSocket``).
public protocol WebSocketHandler: AnyObject {
    /// A whole message (fragments joined, text checked as UTF-8).
    func received(_ message: WebSocketMessage, on socket: WebSocket)
    /// The socket is closing or closed, once: `code` is the one sent or received (`nil`: the connection was lost).
    /// Nothing sent after this is delivered.
    func closed(_ code: WebSocketCloseCode?)
}

/// A data message.
public enum WebSocketMessage: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
}

/// A WebSocket route's answer to an upgrade request whose handshake is valid (``WebSocketHandshake``).
public enum WebSocketDecision: Sendable {
    /// Not upgraded: this answer instead (`401` for a missing key, `404`, …).
    case refuse(HTTPResponse)
    /// Upgraded (`101`) unless the caps refuse it: `client` is who the socket counts as for the per-client cap (the
    /// route knows who a request counts as, the core does not); `open` makes the socket's handler, on its loop.
    case accept(client: IPAddress, open: @Sendable (WebSocket) -> any WebSocketHandler)
}
