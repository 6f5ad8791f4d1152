import Basics
import HTTPServer

/// A refusal of the community's auth routes in the shape of Supabase's auth server, which its clients read: since API
/// version 2024-01-01 (`X-Supabase-Api-Version`, which supabase-swift, supabase-kt and the Python client send)
/// `{"code":"<error_code>","message":…}`, before it `{"code":<status>,"error_code":…,"msg":…}`.
struct AuthError: Error, Equatable, Sendable {
    var status: HTTPStatus
    /// The auth server's `error_code` (`refresh_token_not_found`, `bad_jwt`, `validation_failed`).
    var code: String
    var message: String
    var headers: HTTPHeaders = HTTPHeaders()

    static func == (lhs: AuthError, rhs: AuthError) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// The API version the routes speak, sent back on every answer as the auth server does.
    static let apiVersion = "2024-01-01"

    /// The answer to `request`, in the shape its API version asks for.
    func response(to request: HTTPRequest) -> HTTPResponse {
        let current = request.headers["x-supabase-api-version"].map { $0.utf8.count == 10 && $0 >= Self.apiVersion } ?? false
        let body = JSONWriter.make { json in
            json.object { json in
                if current {
                    json.member("code", code)
                    json.member("message", message)
                } else {
                    json.member("code", status.code)
                    json.member("error_code", code)
                    json.member("msg", message)
                }
            }
        }
        var headers = headers
        headers.set("X-Supabase-Api-Version", Self.apiVersion)
        headers.set("Cache-Control", "no-store")
        return .json(body, status: status, headers: headers)
    }

    static func validation(_ message: String) -> AuthError { AuthError(status: .badRequest, code: "validation_failed", message: message) }

    static func caller(_ problem: CommunityCaller.Problem) -> AuthError {
        switch problem {
        case .noKey, .badKey: AuthError(status: .unauthorized, code: "no_authorization", message: problem.message)
        case .expired, .badToken: AuthError(status: .forbidden, code: "bad_jwt", message: problem.message)
        }
    }

    /// An `HTTPError` decided by the one refusal rule (`429` with `Retry-After`, `401` under App Attest's `require`,
    /// `503`), its status and headers kept.
    static func refusal(_ error: HTTPError) -> AuthError {
        let code = switch error.status {
        case .tooManyRequests: "over_request_rate_limit"
        case .unauthorized: "no_authorization"
        default: "unexpected_failure"
        }
        return AuthError(status: error.status, code: code, message: error.message, headers: error.headers)
    }
}
