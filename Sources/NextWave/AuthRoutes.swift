import Basics
import Foundation
import HTTPServer
import Logging
import Parsing
import Postgres
import PostgRESTFormat

/// The auth server's routes as the apps' Supabase clients use them: anonymous sign-up, the session's refresh, the
/// signed-in user (shown, and deleted with everything about them — which Supabase's auth server did not offer), and
/// sign-out. Answers and refusals in its wire format. Cheapest first: the public key, the body's
/// shape, what a sign-up or a refresh may cost, then PostgreSQL.
struct AuthRoutes: Sendable {
    static let signup = "/auth/v1/signup"
    static let token = "/auth/v1/token"
    static let user = "/auth/v1/user"
    static let logout = "/auth/v1/logout"

    let community: CommunityService
    let logger = Logger(label: "pier.nextwave")

    func register(in router: inout Router) {
        router.hybrid(.post, Self.signup) { [self] request in
            answer(request) { community in
                _ = try community.caller(of: request)
                try Self.anonymousSignup(request.body)
                let admitted = try community.signups.admit(request)
                return .later {
                    let session = try await community.auth.signUp(counted: { try community.signups.take(admitted, on: $0) })
                    community.users.add(1, ordering: .relaxed)
                    return Self.json(session.json)
                }
            }
        }
        router.hybrid(.post, Self.token) { [self] request in
            answer(request) { community in
                _ = try community.caller(of: request)
                guard request.query["grant_type"] == "refresh_token" else {
                    throw AuthError(status: .badRequest, code: "validation_failed", message: "unsupported_grant_type: only refresh_token is served")
                }
                let token = try Self.refreshToken(request.body)
                try community.writes.admit(request, user: nil)
                return .later {
                    do {
                        return Self.json(try await community.auth.refresh(token).json)
                    } catch let problem as AuthStore.Problem {
                        throw problem == .refreshTokenAlreadyUsed
                            ? AuthError(status: .badRequest, code: "refresh_token_already_used", message: "Invalid Refresh Token: Already Used")
                            : AuthError(status: .badRequest, code: "refresh_token_not_found", message: "Invalid Refresh Token: Refresh Token Not Found")
                    }
                }
            }
        }
        router.hybrid(.get, Self.user) { [self] request in
            answer(request) { community in
                let (user, session) = try Self.signedIn(community.caller(of: request))
                return .later {
                    guard let found = try await community.auth.user(user, session: session) else { throw Self.gone }
                    return Self.json(found.json)
                }
            }
        }
        router.hybrid(.delete, Self.user) { [self] request in
            answer(request) { community in
                let (user, _) = try Self.signedIn(community.caller(of: request))
                return .later {
                    guard try await community.auth.deleteUser(user) else { throw Self.gone }
                    community.users.subtract(1, ordering: .relaxed)
                    community.changed(.deleted(user))
                    return HTTPResponse(status: .noContent, headers: Self.headers)
                }
            }
        }
        router.hybrid(.post, Self.logout) { [self] request in
            answer(request) { community in
                let (user, session) = try Self.signedIn(community.caller(of: request))
                let scopeName = request.query["scope"] ?? "global"
                guard let scope = AuthStore.SignOutScope(rawValue: scopeName) else {
                    throw AuthError.validation("scope is global, local or others")
                }
                return .later {
                    try await community.auth.signOut(user: user, session: session, scope: scope)
                    return HTTPResponse(status: .noContent, headers: Self.headers)
                }
            }
        }
    }

    static let gone = AuthError(status: .forbidden, code: "user_not_found", message: "User from sub claim in JWT does not exist")

    /// A user's routes need their access token, not the public key alone.
    private static func signedIn(_ caller: CommunityCaller) throws(AuthError) -> (user: String, session: String?) {
        guard case .user(let id, let session) = caller else {
            throw AuthError(status: .forbidden, code: "bad_jwt", message: "invalid claim: missing sub claim")
        }
        return (id, session)
    }

    /// Only anonymous sign-ups (``AuthRequestBody/signup(_:)``).
    static func anonymousSignup(_ body: [UInt8]) throws(AuthError) {
        do { try AuthRequestBody.signup(body) } catch { throw refusal(error) }
    }

    /// `{"refresh_token": "…"}`.
    static func refreshToken(_ body: [UInt8]) throws(AuthError) -> String {
        do { return try AuthRequestBody.refreshToken(body) } catch { throw refusal(error) }
    }

    /// A body's problem as the auth server words it.
    private static func refusal(_ problem: AuthRequestBody.Problem) -> AuthError {
        switch problem {
        case .notJSON: AuthError(status: .badRequest, code: "bad_json", message: "Could not parse request body as JSON")
        case .notAnonymous(let field):
            AuthError(status: .unprocessableContent, code: "\(field == "phone" ? "phone" : "email")_provider_disabled", message: "Only anonymous sign-ups are served here")
        case .noRefreshToken: AuthError.validation("refresh_token required")
        }
    }

    static let headers: HTTPHeaders = ["Cache-Control": "no-store", "X-Supabase-Api-Version": AuthError.apiVersion]

    static func json(_ body: String) -> HTTPResponse {
        .json(Array(body.utf8), headers: headers)
    }

    /// Runs `work` and answers every refusal in the auth server's shape.
    private func answer(_ request: HTTPRequest, _ work: (CommunityService) throws -> FastAnswer) -> FastAnswer {
        let logger = self.logger
        return .refusing({ Self.refusal($0, logger: logger).response(to: request) }) { try work(community) }
    }

    private static func refusal(_ error: any Error, logger: Logger) -> AuthError {
        switch error {
        case let error as AuthError: return error
        case let error as CommunityCaller.Problem: return .caller(error)
        case let error as HTTPError: return .refusal(error)
        case let error as PostgresError where error.isUnavailable:
            return AuthError(status: .serviceUnavailable, code: "unexpected_failure", message: "the database is not reachable; try again", headers: ["Retry-After": "5"])
        default:
            logger.error("community auth request failed", metadata: ["error": "\(error)"])
            return AuthError(status: .internalServerError, code: "unexpected_failure", message: "internal server error")
        }
    }
}
