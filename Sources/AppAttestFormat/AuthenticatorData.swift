import CBOR
/// WebAuthn authenticator data as App Attest writes it (Apple: "Validating apps that connect to your server"):
/// `rpIdHash` (32 bytes: SHA-256 of the app id), `flags` (1), `signCount` (4, big-endian) and, in an attestation,
/// the attested credential data — `aaguid` (16: the environment), `credentialId` length (2) and value (the key id),
/// and the credential public key (COSE, CBOR).
public struct AuthenticatorData: Sendable, Equatable {
    public var rpIDHash: [UInt8]
    public var flags: UInt8
    public var counter: UInt32
    public var attestedCredential: AttestedCredential?

    public struct AttestedCredential: Sendable, Equatable {
        public var aaguid: [UInt8]
        public var credentialID: [UInt8]
        public var publicKey: CBOR
    }

    /// Bit 6 of `flags` (AT): attested credential data follow.
    public static let attestedCredentialFlag: UInt8 = 0x40

    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case tooShort(Int)
        case credential(String)

        public var description: String {
            switch self {
            case let .tooShort(count): "the authenticator data is \(count) bytes, fewer than 37"
            case let .credential(reason): "the attested credential data are unreadable: \(reason)"
            }
        }
    }

    public init(_ bytes: [UInt8]) throws(Problem) {
        guard bytes.count >= 37 else { throw .tooShort(bytes.count) }
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        counter = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        // App Attest's assertions set the AT flag without any credential data: only data that are there are read.
        guard flags & Self.attestedCredentialFlag != 0, bytes.count > 37 else {
            attestedCredential = nil
            return
        }
        guard bytes.count >= 37 + 18 else { throw .credential("\(bytes.count) bytes, too short for an aaguid and a length") }
        let aaguid = Array(bytes[37..<53])
        let length = Int(bytes[53]) << 8 | Int(bytes[54])
        guard bytes.count >= 55 + length else { throw .credential("a credential id of \(length) bytes beyond the data") }
        let credentialID = Array(bytes[55..<55 + length])
        let key: CBOR
        do {
            (key, _) = try CBORDecoder.decodePrefix(Array(bytes[(55 + length)...]))
        } catch {
            throw .credential("the public key is not CBOR: \(error)")
        }
        attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKey: key)
    }
}
