import Crypto
import Parsing

/// A secret a server hands a client to present later (a device registration's, a refresh token): 32 random bytes in
/// base64url, stored only as its SHA-256 so that a database dump holds no credential.
public enum BearerSecret {
    /// A new secret.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// What is stored of `secret`: its SHA-256, lower-case hex.
    public static func digest(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
