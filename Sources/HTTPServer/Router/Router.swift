/// Maps method and path to a handler. Paths are matched exactly after percent-decoding.
///
/// `GET` routes answer `HEAD` too (the body is dropped, the length kept). A known path with another method
/// is `405` with `Allow`; an unknown path is `404`.
public struct Router: Sendable {
    /// The outcome of looking a request up.
    public enum Match: Sendable {
        case found(RouteHandler, route: String)
        case methodNotAllowed(allow: String)
        case notFound
    }

    private var routes: [String: [HTTPMethod: RouteHandler]] = [:]

    public init() {}

    /// Registers `handler` for `method` on `path`; a later registration of the same pair replaces it.
    public mutating func add(_ method: HTTPMethod, _ path: String, _ handler: RouteHandler) {
        routes[path, default: [:]][method] = handler
    }

    /// Registers a handler that answers from memory on the event loop.
    public mutating func on(_ method: HTTPMethod, _ path: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        add(method, path, .immediate(handler))
    }

    /// Registers a handler that may wait (database, upstream); it runs off the event loop.
    public mutating func on(_ method: HTTPMethod, _ path: String, _ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        add(method, path, .deferred(handler))
    }

    /// Registers a handler that answers on the loop when `fast` can, and off it through `slow` otherwise.
    public mutating func on(
        _ method: HTTPMethod, _ path: String, fast: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse?,
        slow: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) {
        add(method, path, .hybrid(fast: fast, slow: slow))
    }

    public func match(_ method: HTTPMethod, path: String) -> Match {
        guard let methods = routes[path] else { return .notFound }
        if let handler = methods[method] { return .found(handler, route: path) }
        if method == .head, let handler = methods[.get] { return .found(handler, route: path) }
        return .methodNotAllowed(allow: Self.allow(methods))
    }

    /// All registered paths, sorted (for documentation and tests).
    public var paths: [String] { routes.keys.sorted() }

    /// Every registered method and path, `GET /health` style, sorted (HEAD is implied by GET and not listed).
    public var operations: [String] {
        routes.flatMap { path, methods in methods.keys.map { "\($0.rawValue) \(path)" } }.sorted()
    }

    private static func allow(_ methods: [HTTPMethod: RouteHandler]) -> String {
        var names = Set(methods.keys.map(\.rawValue))
        if names.contains("GET") { names.insert("HEAD") }
        return names.sorted().joined(separator: ", ")
    }
}
