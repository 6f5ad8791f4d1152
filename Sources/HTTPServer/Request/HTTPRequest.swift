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
        guard let value = pathParameters.value(name, in: path) else { throw HTTPError(.notFound, "no such path") }
        return value
    }
}
