/// What runs for a route.
///
/// `immediate` handlers run on the event loop and must not block: use them for answers computed from memory
/// (health, cached bodies). `deferred` handlers may do slow work; they run as Swift concurrency tasks and
/// their response is handed back to the loop.
public enum RouteHandler: Sendable {
    case immediate(@Sendable (HTTPRequest) throws -> HTTPResponse)
    case deferred(@Sendable (HTTPRequest) async throws -> HTTPResponse)
}
