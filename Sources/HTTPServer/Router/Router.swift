/// Maps method and path to a handler. Paths are matched exactly, byte for byte, after percent-decoding; a path with
/// `{name}` segments (``PathTemplate``) matches any value there, tried only when no exact path matched.
///
/// `GET` routes answer `HEAD` too (the body is dropped, the length kept). A known path with another method
/// is `405` with `Allow`; an unknown path is `404`. CORS is applied here, per path (``RouteAccess``): a public
/// path answers its `OPTIONS` preflight and its answers are marked for any origin.
public struct Router: Sendable {
    /// The outcome of looking a request up.
    public enum Match: Sendable {
        /// `cors`: the answer carries `Access-Control-Allow-Origin: *` (the path is public); `parameters`: the
        /// values of a template's `{name}` segments; `slot`: the route's number in this router (0, 1, …), where each
        /// event loop keeps the route's metrics without looking its name up.
        case found(RouteHandler, route: String, cors: Bool, parameters: PathParameters, slot: Int)
        /// `route` and `slot` as for ``found(_:route:cors:parameters:slot:)``: the refusal is counted under the route's
        /// own label (a template's, never the path asked: a label per path would grow with whatever anyone sends).
        case methodNotAllowed(allow: String, route: String, slot: Int)
        case notFound
    }

    /// A path's routes. A class, made anew on every registration and never changed: a lookup on the hot path
    /// then costs one reference count, not one per field.
    private final class Path: Sendable {
        /// The path's methods and their handlers, looked through on every request: a path answers a handful of methods,
        /// and comparing their short names costs less than hashing one.
        let handlers: [(method: HTTPMethod, handler: RouteHandler)]
        let cors: Bool
        /// The preflight answer of a public path without an `OPTIONS` handler of its own.
        let preflight: RouteHandler?
        /// The `Allow` value of a `405`: every method the path answers, sorted.
        let allow: String
        let slot: Int

        init(methods: [HTTPMethod: RouteHandler], cors: Bool, preflight: RouteHandler?, allow: String, slot: Int) {
            handlers = methods.map { ($0.key, $0.value) }
            self.cors = cors
            self.preflight = preflight
            self.allow = allow
            self.slot = slot
        }

        /// The handlers by method, for a registration that adds one.
        var methods: [HTTPMethod: RouteHandler] { Dictionary(uniqueKeysWithValues: handlers) }

        func handler(for method: HTTPMethod) -> RouteHandler? {
            for entry in handlers where entry.method == method { return entry.handler }
            return nil
        }
    }

    /// The exact paths, matched byte for byte (a path beyond ASCII too: a canonically equivalent spelling is another
    /// path), looked up with the request's path bytes where they lie (``ByteKeyedTable``).
    private var routes = ByteKeyedTable<Path>()
    /// Routes with `{name}` segments, the longest literal prefix first, then in registration order (the first match
    /// wins): a path is asked of the templates most like it first — a community call of `/rest/v1/rpc/{function}`
    /// before `/rest/v1/{table}` and the other features' five —, and of two templates that both match the same path
    /// the one with more of it written out wins (`/a/b/{y}` before `/a/{x}/c`).
    private var templates: [(template: PathTemplate, path: Path)] = []
    /// Paths registered so far: the next path's slot.
    public private(set) var slots = 0

    /// The request headers a public path's preflight allows; the executable adds those the features' clients send
    /// (App Attest's token) before the routes are registered.
    public var requestHeaders = ["Authorization", "If-None-Match", "Content-Type"]

    public init() {}

    /// Registers `handler` for `method` on `path`; a later registration of the same pair replaces it. A path is
    /// as accessible as its last registration says.
    public mutating func add(_ method: HTTPMethod, _ path: String, _ handler: RouteHandler, access: RouteAccess = .public) {
        let isTemplate = PathTemplate.isTemplate(path)
        let existing = isTemplate ? templates.first { $0.template.description == path }?.path : routes[path]
        var methods = existing?.methods ?? [:]
        let slot = existing?.slot ?? slots
        if existing == nil { slots += 1 }
        methods[method] = handler
        var names = Set(methods.keys.map(\.rawValue))
        if names.contains("GET") { names.insert("HEAD") }
        if access == .public { names.insert("OPTIONS") }
        var preflight: RouteHandler?
        if access == .public && methods[.options] == nil {
            // The preflight lists the path's own methods first, then HEAD, then OPTIONS (`GET, HEAD, OPTIONS`).
            let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
            let rank = { (name: String) in order.firstIndex(of: name) ?? order.count }
            let answer = CORS.preflight(allowed: names.sorted { (rank($0), $0) < (rank($1), $1) }.joined(separator: ", "), headers: requestHeaders)
            preflight = .immediate { _ in answer }
        }
        let entry = Path(methods: methods, cors: access == .public, preflight: preflight, allow: names.sorted().joined(separator: ", "), slot: slot)
        if isTemplate {
            if let index = templates.firstIndex(where: { $0.template.description == path }) {
                templates[index].path = entry
            } else {
                let template = PathTemplate(path)
                let length = template.shape.literalPrefix.count
                let index = templates.firstIndex { $0.template.shape.literalPrefix.count < length } ?? templates.count
                templates.insert((template, entry), at: index)
            }
        } else {
            routes = routes.adding(path, entry)
        }
    }

    /// Registers a handler that answers from memory on the event loop.
    public mutating func on(
        _ method: HTTPMethod, _ path: String, access: RouteAccess = .public, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
    ) {
        add(method, path, .immediate(handler), access: access)
    }

    /// Registers a handler that may wait (database, upstream); it runs off the event loop.
    public mutating func on(
        _ method: HTTPMethod, _ path: String, access: RouteAccess = .public,
        _ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) {
        add(method, path, .deferred(handler), access: access)
    }

    /// Registers a handler that answers on the loop when it can (``FastAnswer/response(_:)``) and hands the
    /// rest to a task (``FastAnswer/later(_:)``).
    public mutating func hybrid(
        _ method: HTTPMethod, _ path: String, access: RouteAccess = .public, _ answer: @escaping @Sendable (HTTPRequest) throws -> FastAnswer
    ) {
        add(method, path, .hybrid(answer), access: access)
    }

    /// Registers a WebSocket route on `GET path` (``WebSocketUpgrade``): `decide` accepts or refuses each upgrade whose
    /// handshake the server found valid.
    public mutating func webSocket(_ path: String, access: RouteAccess = .public, _ decide: @escaping @Sendable (HTTPRequest) throws -> WebSocketDecision) {
        add(.get, path, .upgrade(WebSocketUpgrade.route(decide)), access: access)
    }

    /// Registers a handler that answers on the loop when `fast` can, and off it through `slow` otherwise.
    public mutating func on(
        _ method: HTTPMethod, _ path: String, access: RouteAccess = .public, fast: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse?,
        slow: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) {
        hybrid(method, path, access: access) { request in
            if let response = try fast(request) { return .response(response) }
            return .later { try await slow(request) }
        }
    }

    public func match(_ method: HTTPMethod, path: String) -> Match {
        var path = path
        return path.withUTF8 { match(method, pathBytes: $0) }
    }

    /// ``match(_:path:)`` of the decoded path's bytes (``HTTPRequest/withPath(_:)``): no `String` is made of them.
    public func match(_ method: HTTPMethod, pathBytes path: UnsafeBufferPointer<UInt8>) -> Match {
        let route: String
        let entry: Path
        var parameters = PathParameters()
        if let index = routes.index(of: path) {
            (route, entry) = (routes.keys[index], routes.values[index])
        } else if let matched = matchTemplate(path) {
            (route, entry, parameters) = matched
        } else {
            return .notFound
        }
        let (cors, slot) = (entry.cors, entry.slot)
        if let handler = entry.handler(for: method) { return .found(handler, route: route, cors: cors, parameters: parameters, slot: slot) }
        if method == .head, let handler = entry.handler(for: .get) { return .found(handler, route: route, cors: cors, parameters: parameters, slot: slot) }
        if method == .options, let preflight = entry.preflight { return .found(preflight, route: route, cors: cors, parameters: parameters, slot: slot) }
        return .methodNotAllowed(allow: entry.allow, route: route, slot: slot)
    }

    /// The first template route matching `path`, with where its segments' values lie.
    private func matchTemplate(_ bytes: UnsafeBufferPointer<UInt8>) -> (String, Path, PathParameters)? {
        for index in templates.indices where templates[index].template.matches(utf8: bytes) {
            let template = templates[index].template
            return (template.description, templates[index].path, PathParameters(template.shape))
        }
        return nil
    }

    /// All registered paths (templates as written), sorted (for documentation and tests).
    public var paths: [String] { (routes.keys + templates.map(\.template.description)).sorted() }

    /// Every method and path answered, `GET /health` style, sorted (HEAD is implied by GET and not listed; a
    /// public path's preflight is listed as `OPTIONS`).
    public var operations: [String] {
        (Array(zip(routes.keys, routes.values)) + templates.map { ($0.template.description, $0.path) }).flatMap { path, entry in
            entry.handlers.map { "\($0.method.rawValue) \(path)" } + (entry.preflight == nil ? [] : ["OPTIONS \(path)"])
        }.sorted()
    }
}
