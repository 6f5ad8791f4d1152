/// Cross-origin access for browser clients, applied by the router to public paths (``RouteAccess``): every
/// answer allows any origin, and a preflight request gets the methods and headers a client may use.
enum CORS {
    /// `Access-Control-Allow-Origin: *`, encoded once; the response encoder writes it for public routes.
    static let allowAnyOrigin = Array("Access-Control-Allow-Origin: *\r\n".utf8)

    /// The answer to a preflight on a path whose methods are `allowed` (`GET, HEAD, OPTIONS`) and whose clients may
    /// send `headers`.
    static func preflight(allowed: String, headers: [String]) -> HTTPResponse {
        HTTPResponse(
            status: .noContent,
            headers: [
                "Access-Control-Allow-Methods": allowed,
                "Access-Control-Allow-Headers": headers.joined(separator: ", "),
                "Access-Control-Max-Age": "86400",
                "Allow": allowed,
            ])
    }
}
