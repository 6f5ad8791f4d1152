/// One parsed request, handed to a route handler.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request-target exactly as sent (origin-form, or absolute-form reduced to its path and query).
    public var target: String
    /// The percent-decoded path, used for routing.
    public var path: String
    public var query: QueryParameters
    public var version: HTTPVersion
    /// Header fields with lower-cased names.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The socket peer's address (the proxy's, behind one; see ``ClientAddress``).
    public var peer: IPAddress
    /// The values of the route's `{name}` segments (``PathTemplate``), set by the router; empty for exact paths.
    public var pathParameters: [String: String] = [:]
    /// This process's number for the request (loop and sequence), for logs that must tie lines to one request.
    public var id: UInt64 = 0
    /// How the client is found (the server's trusted proxies); the server sets it.
    public var clients: ClientAddress?

    /// Who the request comes from, for per-client shares: the socket peer, or the client a trusted proxy forwarded
    /// (``ClientAddress``). Worked out when asked, so requests answered from memory never pay for it.
    public var client: IPAddress { (clients ?? ClientAddress()).client(of: self) }

    /// Who the request counts as when it would spend an upstream's budget or quota: its address (``client``), or a
    /// device its credential proves (``ClientCredentials``). Worked out when asked.
    public var spender: Client { (clients ?? ClientAddress()).spender(of: self) }

    public init(
        method: HTTPMethod, target: String, path: String, query: QueryParameters = QueryParameters(),
        version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        peer: IPAddress = .unspecified
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
        self.peer = peer
    }

    /// The value of the route's `{name}` segment; a route without it is a programming error answered `404`.
    public func parameter(_ name: String) throws(HTTPError) -> String {
        guard let value = pathParameters[name] else { throw HTTPError(.notFound, "no such path") }
        return value
    }
}
