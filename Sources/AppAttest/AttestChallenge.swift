import Foundation

/// A challenge for `attestKey` or `generateAssertion`: 32 bytes — the key id (1), 15 random, the expiry (8, seconds)
/// and 8 of the MAC — that any replica recognises with the shared secret, without a row per challenge (the route is
/// open to anyone). It is single-use: the first registration or token exchange that shows it spends it
/// (``AppAttestStore``) until it expires.
struct AttestChallenge: Sendable {
    static let lifetime: TimeInterval = 300
    static let randomBytes = 15
    static let macBytes = 8

    let signer: SignedBytes

    /// A new challenge, valid for ``lifetime`` from `now`.
    func issue(now: Date) -> [UInt8] {
        signer.sign(SignedBytes.random(Self.randomBytes) + SignedBytes.seconds(now.addingTimeInterval(Self.lifetime)), for: .challenge, macBytes: Self.macBytes)
    }

    /// When `challenge` expires, if this server issued it and it has not; otherwise why not.
    func check(_ challenge: [UInt8], now: Date) throws(AppAttestFailure) -> Date {
        guard let value = signer.value(of: challenge, for: .challenge, valueBytes: Self.randomBytes + 8, macBytes: Self.macBytes) else {
            throw .challenge("was not issued by this server")
        }
        let expires = SignedBytes.date(value.suffix(8))
        guard now < expires else { throw .challenge("has expired (a challenge holds \(Int(Self.lifetime)) seconds)") }
        return expires
    }
}
