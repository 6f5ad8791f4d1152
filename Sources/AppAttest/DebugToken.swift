import Crypto

/// A debug device's token (`pier app-attest debug-token create`): `pier-debug-` and 32 random bytes in base64url,
/// shown once; only its SHA-256 is stored and looked up (``AppAttestStore``, ``AppAttestService/debug(token:client:now:)``).
public enum DebugToken {
    /// A new token.
    public static func make() -> String {
        "pier-debug-" + AppToken.base64URL(SignedBytes.random(32))
    }

    /// What is stored of `token`, and what a token shown is looked up by.
    public static func hash(of token: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}
