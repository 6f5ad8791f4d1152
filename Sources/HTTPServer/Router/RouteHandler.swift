/// What runs for a route.
///
/// `immediate` handlers run on the event loop and must not block: use them for answers computed from memory
/// (health, cached bodies). `deferred` handlers may do slow work; they run as Swift concurrency tasks and
/// their response is handed back to the loop.
public enum RouteHandler: Sendable {
    case immediate(@Sendable (HTTPRequest) throws -> HTTPResponse)
    case deferred(@Sendable (HTTPRequest) async throws -> HTTPResponse)
    /// Runs on the loop and answers from memory when it can; otherwise it returns the slow work to run as a
    /// deferred handler — a closure that keeps what the fast part already worked out (the parsed query), so
    /// a miss does not parse the request twice.
    case hybrid(@Sendable (HTTPRequest) throws -> FastAnswer)
    /// May switch the connection to another protocol (``ProtocolUpgrade``; WebSocket: ``Router/webSocket(_:access:_:)``).
    case upgrade(ProtocolUpgrade)
}

/// What a hybrid handler's fast part decided.
public enum FastAnswer: Sendable {
    /// Answered from memory, on the loop.
    case response(HTTPResponse)
    /// Needs to wait (PostgreSQL, an upstream): this runs off the loop.
    case later(@Sendable () async throws -> HTTPResponse)
}
