import Basics
import Foundation

/// The claims Pier reads from and writes into a Supabase JWT. Reading keeps what decides access (`role`, `sub`,
/// `exp`, the session); writing produces what Supabase's auth server puts into an anonymous user's access token, so
/// that clients which decode it (supabase-swift reads `exp`, `sub`, `session_id`) find what they expect.
public struct SupabaseClaims: Sendable, Equatable {
    /// `anon` (the public key), `authenticated` (a signed-in user), `service_role` (never accepted by Pier's routes).
    public var role: String
    /// The user's id, lower-case (access tokens only).
    public var subject: String?
    /// Seconds since 1970.
    public var issuedAt: Int64?
    public var expires: Int64?
    public var issuer: String?
    public var sessionID: String?
    public var isAnonymous: Bool

    public init(role: String, subject: String? = nil, issuedAt: Int64? = nil, expires: Int64? = nil, issuer: String? = nil, sessionID: String? = nil, isAnonymous: Bool = false) {
        self.role = role
        self.subject = subject
        self.issuedAt = issuedAt
        self.expires = expires
        self.issuer = issuer
        self.sessionID = sessionID
        self.isAnonymous = isAnonymous
    }

    /// An anonymous user's access token, as Supabase's auth server writes it.
    public static func accessToken(user: String, session: String, issuedAt: Int64, lifetime: Int64, issuer: String) -> SupabaseClaims {
        SupabaseClaims(
            role: "authenticated", subject: user, issuedAt: issuedAt, expires: issuedAt + lifetime, issuer: issuer, sessionID: session,
            isAnonymous: true)
    }

    /// Reads the claims object; `nil` when it is no JSON object or has no `role`.
    init?(json: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any], let role = object["role"] as? String else { return nil }
        self.role = role
        subject = object["sub"] as? String
        issuedAt = (object["iat"] as? NSNumber)?.int64Value
        expires = (object["exp"] as? NSNumber)?.int64Value
        issuer = object["iss"] as? String
        sessionID = object["session_id"] as? String
        isAnonymous = object["is_anonymous"] as? Bool ?? false
    }

    /// The claims as the token carries them; a user's token also carries what the auth server writes for an anonymous
    /// user (audience, empty contact details and metadata, the sign-in method).
    var json: String {
        JSONWriter.text { json in
            json.object { json in
                if let issuer { json.member("iss", issuer) }
                if let expires { json.member("exp", Int(expires)) }
                if let issuedAt { json.member("iat", Int(issuedAt)) }
                json.member("role", role)
                if let sessionID { json.member("session_id", sessionID) }
                guard let subject else { return }
                json.member("sub", subject)
                json.member("aud", "authenticated")
                json.member("email", "")
                json.member("phone", "")
                json.member("app_metadata", object: { _ in })
                json.member("user_metadata", object: { _ in })
                json.member("aal", "aal1")
                json.member("amr", array: { json in
                    guard let issuedAt else { return }
                    json.object { json in
                        json.member("method", "anonymous")
                        json.member("timestamp", Int(issuedAt))
                    }
                })
                json.member("is_anonymous", isAnonymous)
            }
        }
    }
}
