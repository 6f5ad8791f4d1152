import Basics
import Crypto
import Foundation
import Parsing

/// HS256 JSON Web Tokens as Supabase's auth server and PostgREST use them: the public key the apps ship (`role` `anon`)
/// and the short-lived access tokens of signed-in users (`role` `authenticated`), both signed with the project's JWT
/// secret. Only HS256: a token naming another algorithm (`none` included) is refused before anything else is read.
public struct SupabaseJWT: Sendable {
    /// Why a token is not accepted (never the token itself: it is a credential).
    public enum Problem: Error, Equatable, Sendable {
        /// Not three base64url parts of JSON, or over ``maximumBytes``.
        case malformed
        /// An algorithm other than HS256.
        case algorithm
        /// The signature does not match the secret.
        case signature
        /// `exp` has passed.
        case expired
    }

    /// Longer tokens are refused unread: an access token with its claims is well under 2 KB.
    public static let maximumBytes = 4096

    private let key: SymmetricKey

    public init(secret: String) {
        key = SymmetricKey(data: Array(secret.utf8))
    }

    /// `claims` signed; `claims` is the JSON object as it goes into the token.
    public func sign(_ claims: SupabaseClaims) -> String {
        let header = Base64URL.encode(JSONWriter.make { json in
            json.object { json in
                json.member("alg", "HS256")
                json.member("typ", "JWT")
            }
        })
        let input = header + "." + Base64URL.encode(Array(claims.json.utf8))
        let signature = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: key)
        return input + "." + Base64URL.encode(Array(signature))
    }

    /// The claims of `token` when this secret signed it and it has not expired at `now`. The cheap checks come first:
    /// the size, the shape, the header's algorithm, then one HMAC; the claims are decoded only once it verified.
    public func verify(_ token: Substring, now: Date = Date()) throws(Problem) -> SupabaseClaims {
        guard token.utf8.count <= Self.maximumBytes else { throw .malformed }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let signature = Base64URL.decode(parts[2]) else { throw .malformed }
        guard let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any] else { throw .malformed }
        guard header["alg"] as? String == "HS256" else { throw .algorithm }
        let input = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: key) else { throw .signature }
        guard let payload = Base64URL.decode(parts[1]), let claims = SupabaseClaims(json: payload) else { throw .malformed }
        if let expires = claims.expires, Double(expires) <= now.timeIntervalSince1970 { throw .expired }
        return claims
    }
}
