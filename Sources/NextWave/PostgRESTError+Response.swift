import HTTPServer
import PostgRESTFormat

extension PostgRESTError {
    /// The answer: PostgREST's body with the error's status.
    func response(headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers.set("Cache-Control", "no-store")
        return .json(Array(json.utf8), status: .code(status), headers: headers)
    }
}
