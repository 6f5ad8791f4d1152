/// An error a handler throws to answer with a status and the contract's `{"error": …}` body.
///
/// Domain error enums conform to ``HTTPErrorConvertible`` so that the mapping to a status lives in one place.
public struct HTTPError: Error, Sendable, Equatable, HTTPErrorConvertible {
    public var status: HTTPStatus
    public var message: String
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, _ message: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var httpError: HTTPError { self }

    public var response: HTTPResponse { .error(status, message, headers: headers) }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message
    }
}

/// An error that knows which HTTP answer it deserves.
public protocol HTTPErrorConvertible: Error {
    var httpError: HTTPError { get }
}
