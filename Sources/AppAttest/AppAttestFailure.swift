/// Why an attestation or an assertion is refused, in words an operator can act on (never a key or a token).
public enum AppAttestFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not the shape App Attest sends (CBOR, fields, lengths): `400` at the routes.
    case malformed(String)
    case format(String)
    case certificateChain(String)
    case nonce
    case keyID
    case appID
    case counter(UInt32, expectedAbove: UInt32?)
    case environment
    case credentialID
    case signature

    public var description: String {
        switch self {
        case let .malformed(reason): "malformed: \(reason)"
        case let .format(format): "the attestation format is \(format), not apple-appattest"
        case let .certificateChain(reason): "the certificate chain does not lead to Apple's App Attestation Root CA: \(reason)"
        case .nonce: "the nonce in the credential certificate does not match the authenticator data and the client data"
        case .keyID: "the credential certificate's public key does not hash to the key id"
        case .appID: "the authenticator data's rpIdHash is not that of a configured app"
        case let .counter(counter, expected?): "the counter \(counter) is not greater than \(expected)"
        case let .counter(counter, nil): "the counter of a new key is \(counter), not 0"
        case .environment: "the aaguid is not that of the configured environment"
        case .credentialID: "the credential id is not the key id"
        case .signature: "the assertion's signature does not verify with the device's key"
        }
    }

    /// `true`: the input's shape was wrong (`400`); otherwise the proof failed (`401`).
    public var isMalformed: Bool {
        if case .malformed = self { return true }
        return false
    }
}
