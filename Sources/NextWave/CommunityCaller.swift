import Foundation
import SupabaseAuth

/// Who a request to the community's routes is, decided once from its two headers as Supabase's gateway and PostgREST
/// decide it: `apikey` must be the project's public key (an HS256 token with `role` `anon`, signed with the JWT secret),
/// and `Authorization: Bearer` carries either that same key (nobody signed in) or a user's access token.
enum CommunityCaller: Equatable, Sendable {
    /// The public key only: may read counts, nothing of anybody.
    case anonymous
    /// A signed-in user (lower-case UUID) and the session the token was issued in.
    case user(id: String, session: String?)

    var userID: String? {
        if case .user(let id, _) = self { return id }
        return nil
    }

    /// Why the headers do not identify anybody; the surfaces word it in their own shapes.
    enum Problem: Error, Equatable {
        /// No `apikey` header (the gateway's first refusal).
        case noKey
        /// `apikey` is not this project's public key.
        case badKey
        /// The bearer token has expired (the clients refresh their session on this).
        case expired
        /// The bearer token is not one of this project's.
        case badToken

        var message: String {
            switch self {
            case .noKey: "No API key found in request"
            case .badKey: "Invalid API key"
            case .expired: "JWT expired"
            case .badToken: "invalid JWT: unable to parse or verify signature"
            }
        }
    }

    /// What a request showed of who it is, as sent (the routes read it from the headers): services and stores take
    /// this or the caller it names, never a request.
    struct Credentials: Sendable {
        /// The `Authorization` header: absent, not `Bearer <token>`, or the token.
        enum Authorization: Sendable {
            case none
            case notBearer
            case bearer(Substring)
        }

        /// The `apikey` header.
        var apiKey: String?
        var authorization: Authorization
    }

    /// The caller showing `credentials`, whose `key` (its `apikey`) has been verified as the public key: a bearer equal to
    /// it is not verified again. A user's token verified before is taken from `verified` until it expires.
    static func of(
        _ credentials: Credentials, key: String, jwt: SupabaseJWT, verified: VerifiedTokens? = nil, now: Date = Date()
    ) throws(Problem) -> CommunityCaller {
        let token: Substring
        switch credentials.authorization {
        case .none: return .anonymous
        case .notBearer: throw .badToken
        case .bearer(let bearer): token = bearer
        }
        if token == key { return .anonymous }
        let seconds = Int64(now.timeIntervalSince1970)
        if let held = verified?.caller(of: token, now: seconds) { return held }
        let bearer: SupabaseClaims
        do { bearer = try jwt.verify(token, now: now) } catch { throw error == .expired ? .expired : .badToken }
        switch bearer.role {
        case "anon": return .anonymous
        case "authenticated":
            guard let subject = bearer.subject, let id = UUID(uuidString: subject) else { throw .badToken }
            let caller = CommunityCaller.user(id: id.uuidString.lowercased(), session: bearer.sessionID)
            if let expires = bearer.expires { verified?.keep(token, as: caller, until: expires) }
            return caller
        default:
            // `service_role` and anything else: Pier's routes are for the apps; operators use `pier` commands.
            throw .badToken
        }
    }
}
