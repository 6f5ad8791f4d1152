/// What runs for a route.
///
/// `immediate` handlers run on the event loop and must not block: use them for answers computed from memory
/// (health, cached bodies). `deferred` handlers may do slow work; they run as Swift concurrency tasks and
/// their response is handed back to the loop.
public enum RouteHandler: Sendable {
    case immediate(@Sendable (HTTPRequest) throws -> HTTPResponse)
    case deferred(@Sendable (HTTPRequest) async throws -> HTTPResponse)
    /// `fast` runs on the loop and answers from memory when it can; when it returns `nil`, `slow` runs as a
    /// deferred handler (a cache hit stays on the loop, a miss may wait).
    case hybrid(fast: @Sendable (HTTPRequest) throws -> HTTPResponse?, slow: @Sendable (HTTPRequest) async throws -> HTTPResponse)
}
