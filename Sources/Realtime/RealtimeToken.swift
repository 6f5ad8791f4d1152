/// What a channel's access token is worth, as the feature that issues tokens judges it.
public enum RealtimeToken: Sendable, Equatable {
    /// Valid until `expires` (seconds since 1970; `nil`: no expiry).
    case valid(expires: Int64?)
    case refused(Problem)

    public enum Problem: Sendable, Equatable {
        /// Expired this many seconds ago.
        case expired(secondsAgo: Int64)
        /// Not a JWT.
        case malformed
        /// Not signed by this project (or an algorithm other than the project's).
        case signature
        /// Signed, but for a role Realtime does not serve.
        case role

        /// Supabase Realtime's words (`join`'s reply; a running channel's shutdown drops the code).
        var reason: String { "\(code): \(message)" }

        var code: String {
            switch self {
            case .expired, .role: "InvalidJWTToken"
            case .malformed: "MalformedJWT"
            case .signature: "JwtSignatureError"
            }
        }

        var message: String {
            switch self {
            case .expired(let seconds): "Token has expired \(seconds) seconds ago"
            case .malformed: "The token provided is not a valid JWT"
            case .signature: "Failed to validate JWT signature"
            case .role: "the token's role is neither anon nor authenticated"
            }
        }
    }
}
