import Basics

/// A complete response: status, header fields and the body as ready-encoded bytes.
///
/// The server adds `Date`, `Server`, `Content-Length` and `Connection`; a handler sets everything else.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus { didSet { prepared = nil } }
    public var headers: HTTPHeaders { didSet { prepared = nil } }
    public var body: [UInt8]
    /// The head's parts that stay the same from one send to the next, encoded once (``preparedForSending()``); a change of
    /// status or fields drops them, a new body keeps them (``PreparedHead``: its length is written then).
    private(set) var prepared: PreparedHead? = nil

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// This response with its status line, fields and `Content-Length` encoded now: an answer held to be sent many times
    /// (a cached one) then costs the server two copies of bytes per send, not an encoding of every field.
    public func preparedForSending() -> HTTPResponse {
        var copy = self
        copy.prepared = PreparedHead(self)
        return copy
    }

    public static let jsonContentType = "application/json; charset=utf-8"

    /// A JSON response from already-encoded bytes.
    public static func json(_ body: [UInt8], status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers.set("Content-Type", jsonContentType)
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// A plain-text response.
    public static func text(_ body: String, status: HTTPStatus = .ok, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8))
    }

    /// The contract's error shape: `{"error": "<message>"}`.
    public static func error(_ status: HTTPStatus, _ message: String, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        json(errorBody(message), status: status, headers: headers)
    }

    /// The body of ``error(_:_:headers:)``, for answers that make it once and send it many times.
    public static func errorBody(_ message: String) -> [UInt8] {
        JSONWriter.make { $0.object { $0.member("error", message) } }
    }
}
