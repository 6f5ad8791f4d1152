/// Why an attestation or an assertion is refused, in words an operator can act on (never a key or a token).
public enum AppAttestFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not the shape App Attest sends (CBOR, fields, lengths): `400` at the routes.
    case malformed(String)
    case format(String)
    /// Not two certificates naming each other as Apple's do: refused before any signature is checked.
    case chainShape(String)
    case certificateChain(String)
    case nonce
    case keyID
    case appID
    case counter(UInt32, expectedAbove: UInt32?)
    case environment
    case credentialID
    case signature
    /// The challenge is not one this server issued, has expired, or was used already.
    case challenge(String)
    /// No device is registered with the key id.
    case unknownKey
    /// The operator revoked the device (`pier app-attest revoke`).
    case revoked
    /// The key was attested before: App Attest attests a key once.
    case alreadyRegistered
    /// An `X-Pier-App-Token` that is not one this server issued, or has expired.
    case token(String)
    /// A debug token that is not one of this server's debug devices, or was revoked.
    case debugToken
    /// Debug devices are off on this server (`PIER_APP_ATTEST_DEBUG`).
    case debugOff

    public var description: String {
        switch self {
        case let .malformed(reason): "malformed: \(reason)"
        case let .format(format): "the attestation format is \(format), not apple-appattest"
        case let .chainShape(reason): "the certificate chain is not Apple's shape: \(reason)"
        case let .certificateChain(reason): "the certificate chain does not lead to Apple's App Attestation Root CA: \(reason)"
        case .nonce: "the nonce in the credential certificate does not match the authenticator data and the client data"
        case .keyID: "the credential certificate's public key does not hash to the key id"
        case .appID: "the authenticator data's rpIdHash is not that of a configured app"
        case let .counter(counter, expected?): "the counter \(counter) is not greater than \(expected)"
        case let .counter(counter, nil): "the counter of a new key is \(counter), not 0"
        case .environment: "the aaguid is not that of a configured environment"
        case .credentialID: "the credential id is not the key id"
        case .signature: "the assertion's signature does not verify with the device's key"
        case let .challenge(reason): "the challenge \(reason)"
        case .unknownKey: "no device is registered with this key id"
        case .revoked: "this device is revoked"
        case .alreadyRegistered: "this key is registered already (App Attest attests a key once)"
        case let .token(reason): "the X-Pier-App-Token \(reason)"
        case .debugToken: "the debug token is not one of this server's debug devices, or it was revoked"
        case .debugOff: "debug devices are off on this server (PIER_APP_ATTEST_DEBUG)"
        }
    }

    /// The metrics' label: one word per check, never a value.
    public var code: String {
        switch self {
        case .malformed: "malformed"
        case .format: "format"
        case .chainShape: "chain_shape"
        case .certificateChain: "certificate_chain"
        case .nonce: "nonce"
        case .keyID: "key_id"
        case .appID: "app_id"
        case .counter: "counter"
        case .environment: "environment"
        case .credentialID: "credential_id"
        case .signature: "signature"
        case .challenge: "challenge"
        case .unknownKey: "unknown_key"
        case .revoked: "revoked"
        case .alreadyRegistered: "already_registered"
        case .token: "token"
        case .debugToken: "debug_token"
        case .debugOff: "debug_off"
        }
    }

    /// Every label ``code`` takes for attestations and assertions, for counters made at start (one failure of each kind:
    /// the words are ``code``'s; the debug tokens' refusals are counted on their own).
    public static let codes = [
        AppAttestFailure.malformed(""), .format(""), .chainShape(""), .certificateChain(""), .nonce, .keyID, .appID, .counter(0, expectedAbove: nil), .environment,
        .credentialID, .signature, .challenge(""), .unknownKey, .revoked, .alreadyRegistered, .token(""),
    ].map(\.code)

}
