/// One parsed request, handed to a route handler.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request line's target and, after it, the head's field lines as they arrived — the buffer ``headers`` holds
    /// its fields in, shared: the target, an undecoded path and the query are read where they lie, so a request makes
    /// no `String` of them unless a handler asks (a target or a path past 15 bytes was an allocation each, ~750
    /// instructions of a departures answer, issue 67).
    @usableFromInline let text: [UInt8]
    /// Where the target ends in ``text`` (it starts at 0).
    @usableFromInline let targetEnd: UInt32
    /// Where the path ends in ``text`` when it is the target's own bytes (origin-form, nothing escaped).
    @usableFromInline let pathEnd: UInt32
    /// The path when it is not the target's bytes: percent-decoded, or cut from an absolute-form target.
    @usableFromInline let decodedPath: String?
    /// The request-target exactly as sent (origin-form, or absolute-form as sent).
    public var target: String { text.withUnsafeBufferPointer { String(decoding: $0[0..<Int(targetEnd)], as: UTF8.self) } }
    /// The percent-decoded path, used for routing.
    public var path: String { decodedPath ?? withPath { String(decoding: $0, as: UTF8.self) } }
    public var query: QueryParameters
    public var version: HTTPVersion
    /// Header fields with lower-cased names.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The socket peer's address (the proxy's, behind one): all the server core knows of who is asking (who a request
    /// counts as is the features' identity chain's to decide).
    public var peer: IPAddress
    /// The route's `{name}` segments (``PathTemplate``), set by the router; empty for exact paths.
    public var pathParameters = PathParameters()
    /// This process's number for the request (loop and sequence), for logs that must tie lines to one request.
    public var id: UInt64 = 0

    public init(
        method: HTTPMethod, target: String, path: String, query: QueryParameters = QueryParameters(),
        version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        peer: IPAddress = .unspecified
    ) {
        let text = Array(target.utf8)
        self.init(method: method, text: text, targetEnd: text.count, path: .decoded(path), query: query, version: version, headers: headers)
        self.body = body
        self.peer = peer
    }

    /// Where a parsed request's path lies.
    enum PathText {
        /// The target's first bytes, to this offset.
        case inTarget(end: Int)
        case decoded(String)
    }

    /// A parsed request: `text` holds the target from its start (``text``).
    init(
        method: HTTPMethod, text: [UInt8], targetEnd: Int, path: PathText, query: QueryParameters, version: HTTPVersion, headers: HTTPHeaders
    ) {
        self.method = method
        self.text = text
        self.targetEnd = UInt32(targetEnd)
        switch path {
        case .inTarget(let end): (pathEnd, decodedPath) = (UInt32(end), nil)
        case .decoded(let path): (pathEnd, decodedPath) = (0, path)
        }
        self.query = query
        self.version = version
        self.headers = headers
        body = []
        peer = .unspecified
    }

    /// `body` of the decoded path's bytes.
    @inlinable
    public func withPath<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if var decodedPath { return try decodedPath.withUTF8(body) }
        return try text.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<Int(pathEnd)])) }
    }

    /// The value of the route's `{name}` segment; a route without it is a programming error answered `404`.
    public func parameter(_ name: String) throws(HTTPError) -> String {
        guard let value = withPath({ pathParameters.value(name, in: $0) }) else { throw HTTPError(.notFound, "no such path") }
        return value
    }

    /// `body` of ``parameter(_:)``'s bytes (decoded, valid UTF-8), for a handler that makes its own value of them
    /// without a `String` in between.
    public func withParameter<Result>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result {
        try withPath { path in
            guard let range = pathParameters.range(of: name, in: path) else { throw HTTPError(.notFound, "no such path") }
            return try body(UnsafeBufferPointer(rebasing: path[range]))
        }
    }
}
