import Parsing
import Foundation

/// `X-Pier-App-Token`: who proved itself — a device (its key id, after an attestation and assertions) or a debug
/// device (the hash of its debug token) — and the token's expiry, signed with the shared secret: base64url, 99
/// characters. Any replica checks it without the database; revocation is checked against what every replica holds in
/// memory (revoked devices, the debug devices not revoked).
struct AppToken: Sendable {
    static let lifetime: TimeInterval = 3600
    static let header = "x-pier-app-token"
    static let characters = 99

    /// Who a token stands for.
    enum Holder: Sendable, Equatable {
        /// An App Attest key: its id.
        case device([UInt8])
        /// A debug device: SHA-256 of its debug token.
        case debug([UInt8])
    }

    /// Why a token is not taken: the spending states a forged and an expired token count as.
    enum Problem: Error, Sendable, Equatable {
        case forged
        case expired

        var failure: AppAttestFailure {
            switch self {
            case .forged: .token("is not one this server issued")
            case .expired: .token("has expired (ask POST /v1/app-attest/token for another)")
            }
        }
    }

    let signer: SignedBytes

    func issue(_ holder: Holder, now: Date) -> String {
        let (kind, id): (UInt8, [UInt8]) = switch holder {
        case .device(let keyID): (0, keyID)
        case .debug(let hash): (1, hash)
        }
        return Self.base64URL(signer.sign([kind] + id + SignedBytes.seconds(now.addingTimeInterval(Self.lifetime)), for: .token))
    }

    /// Who `token` stands for, when it is this server's and has not expired.
    func holder(of token: Substring, now: Date) throws(Problem) -> Holder {
        guard token.utf8.count == Self.characters, let bytes = Self.bytes(base64URL: token),
            let value = signer.value(of: bytes, for: .token, valueBytes: 41), value[0] <= 1
        else { throw .forged }
        guard now < SignedBytes.date(value.suffix(8)) else { throw .expired }
        let id = Array(value[1..<33])
        return value[0] == 0 ? .device(id) : .debug(id)
    }

    static func base64URL(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }

    static func bytes(base64URL text: Substring) -> [UInt8]? { Base64URL.decode(text) }
}
