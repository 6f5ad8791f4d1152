import Parsing

/// The auth server's request bodies as the Supabase clients send them, read for shape only: an anonymous sign-up (an
/// empty body, the scripts' `{}`, the Python client's `{"data":{},"gotrue_meta_security":{"captcha_token":null}}`) and a
/// refresh (`{"refresh_token":"…"}`). Small: a longer body is refused unread.
public enum AuthRequestBody {
    public enum Problem: Error, Equatable, Sendable {
        /// Not a JSON object, or over ``maximumBytes``.
        case notJSON
        /// An e-mail, a phone or a password: only anonymous sign-ups are served (the member named).
        case notAnonymous(String)
        /// No refresh token, or not one of the size Pier hands out.
        case noRefreshToken
    }

    public static let maximumBytes = 4096
    /// Refresh tokens are short (Pier's are 43 characters, Supabase's 12 to 64).
    public static let maximumTokenBytes = 200

    /// Checks that `body` asks for an anonymous sign-up.
    public static func signup(_ body: [UInt8]) throws(Problem) {
        guard !body.isEmpty else { return }
        let node = try object(body)
        for field in ["email", "phone", "password"] {
            if let value = node[field], !value.isNull { throw .notAnonymous(field) }
        }
    }

    /// The refresh token `body` carries.
    public static func refreshToken(_ body: [UInt8]) throws(Problem) -> String {
        guard let token = try object(body)["refresh_token"]?.string, !token.isEmpty, token.utf8.count <= maximumTokenBytes else { throw .noRefreshToken }
        return token
    }

    private static func object(_ body: [UInt8]) throws(Problem) -> JSONNode {
        guard body.count <= maximumBytes, let node = try? JSONScanner.parse(body), node.isObject else { throw .notJSON }
        return node
    }
}
