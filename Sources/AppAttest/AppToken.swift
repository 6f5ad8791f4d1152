import Foundation

/// `X-Pier-App-Token`: the key id of a device that proved itself (attestation, then assertions) and the token's
/// expiry, signed with the shared secret — base64url, 96 characters. Any replica checks it without the database;
/// revocation is checked against the revoked devices every replica holds in memory.
struct AppToken: Sendable {
    static let lifetime: TimeInterval = 3600
    static let header = "x-pier-app-token"

    let signer: SignedBytes

    func issue(keyID: [UInt8], now: Date) -> String {
        Self.base64URL(signer.sign(keyID + SignedBytes.seconds(now.addingTimeInterval(Self.lifetime)), for: .token))
    }

    /// The device's key id, when `token` is this server's and has not expired.
    func keyID(of token: Substring, now: Date) throws(AppAttestFailure) -> [UInt8] {
        guard token.utf8.count == 96, let bytes = Self.bytes(base64URL: token),
            let value = signer.value(of: bytes, for: .token, valueBytes: 40)
        else { throw .token("is not one this server issued") }
        guard now < SignedBytes.date(value.suffix(8)) else { throw .token("has expired (ask POST /v1/app-attest/token for another)") }
        return Array(value.prefix(32))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func bytes(base64URL text: Substring) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { Array($0) }
    }
}
