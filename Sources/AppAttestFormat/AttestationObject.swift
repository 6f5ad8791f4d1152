import CBOR

/// An App Attest attestation object read as bytes, without any cryptography: `fmt`, the statement's `x5c` chain and
/// `receipt`, and the authenticator data. The chain must already have Apple's shape (``CertificateChainShape``) here,
/// so that no signature is checked for a chain an attacker shaped to make path building search: whatever the input,
/// reading it costs one CBOR decode and two certificates' outer DER.
public struct AttestationObject: Sendable, Equatable {
    public var format: String
    /// The credential certificate and Apple's intermediate, DER, in that order.
    public var chain: CertificateChainShape
    public var receipt: [UInt8]
    public var authDataBytes: [UInt8]
    public var authData: AuthenticatorData
    /// The attested credential (an attestation always has one).
    public var credential: AuthenticatorData.AttestedCredential

    /// Why bytes are not an attestation object: their shape, or a chain that is not Apple's shape.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case malformed(String)
        case format(String)
        case chainShape(String)

        public var description: String {
            switch self {
            case let .malformed(reason): reason
            case let .format(format): "the attestation format is \(format), not apple-appattest"
            case let .chainShape(reason): "the certificate chain is not Apple's shape: \(reason)"
            }
        }
    }

    public init(_ bytes: [UInt8]) throws(Problem) {
        let object: CBOR
        do { object = try CBORDecoder.decode(bytes) } catch { throw .malformed("the attestation is not CBOR: \(error)") }
        guard let format = object["fmt"]?.text else { throw .malformed("the attestation has no fmt") }
        guard format == "apple-appattest" else { throw .format(format) }
        self.format = format
        guard let x5c = object["attStmt"]?["x5c"] else { throw .malformed("the attestation statement has no certificate chain") }
        guard let entries = x5c.array else { throw .chainShape("x5c is not an array") }
        // The count first: it is what a chain shaped for a costly search differs in, and it costs nothing to read.
        guard entries.count == 2 else { throw .chainShape("\(entries.count) certificates, not 2 (the credential certificate and Apple's intermediate)") }
        let certificates = entries.compactMap(\.bytes)
        guard certificates.count == 2 else { throw .chainShape("an x5c entry is not a byte string") }
        do { chain = try CertificateChainShape(leaf: certificates[0], intermediate: certificates[1]) } catch { throw .chainShape(error.description) }
        guard let receipt = object["attStmt"]?["receipt"]?.bytes else { throw .malformed("the attestation statement has no receipt") }
        self.receipt = receipt
        guard let authDataBytes = object["authData"]?.bytes else { throw .malformed("the attestation has no authData") }
        self.authDataBytes = authDataBytes
        do { authData = try AuthenticatorData(authDataBytes) } catch { throw .malformed("\(error)") }
        guard let credential = authData.attestedCredential else { throw .malformed("the authenticator data hold no credential") }
        self.credential = credential
    }
}
