import CBOR
import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies an App Attest attestation completely, in the order Apple documents ("Validating apps that connect to your
/// server"): the certificate chain to the root at a given instant, the nonce in the credential certificate, the key id,
/// the app id, the counter, the environment and the credential id. Refusals say which check failed.
public struct AttestationVerifier: Sendable {
    /// What a verified attestation establishes: the device's key for the app, in the environment.
    public struct Verified: Sendable, Equatable {
        /// The credential's public key, X9.63 (65 bytes, uncompressed): what assertions are verified with.
        public var publicKey: [UInt8]
        public var appID: String
        public var environment: AppAttestEnvironment
        /// Apple's receipt for the key (kept for fraud-metric requests; not read here).
        public var receipt: [UInt8]
        public var counter: UInt32

        /// `-----BEGIN PUBLIC KEY-----…` (SubjectPublicKeyInfo).
        public var publicKeyPEM: String {
            (try? P256.Signing.PublicKey(x963Representation: publicKey).pemRepresentation) ?? ""
        }
    }

    /// The extension of the credential certificate that holds the nonce.
    static let nonceExtension: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 8, 2]

    private let roots: [Certificate]

    /// - Parameter roots: the trust anchors — Apple's App Attestation Root CA, or a test's own root.
    public init(roots: [Certificate]) {
        self.roots = roots
    }

    /// Apple's root, parsed from ``AppleAppAttestationRoot/pem``.
    public static func appleRoot() throws -> Certificate {
        try Certificate(pemEncoded: AppleAppAttestationRoot.pem)
    }

    /// - Parameters:
    ///   - clientDataHash: SHA-256 of the bytes the app passed to `attestKey` (the server's challenge).
    ///   - apps: the `TEAMID.bundle.id`s accepted.
    ///   - at: the instant the certificates must be valid at: `nil`, now; a recorded instant to replay a recording.
    public func verify(
        attestation: [UInt8], keyID: [UInt8], clientDataHash: [UInt8], apps: [String], environment: AppAttestEnvironment, at: Date? = nil
    ) async throws(AppAttestFailure) -> Verified {
        let object: CBOR
        do { object = try CBORDecoder.decode(attestation) } catch { throw .malformed("the attestation is not CBOR: \(error)") }
        guard let format = object["fmt"]?.text else { throw .malformed("the attestation has no fmt") }
        guard format == "apple-appattest" else { throw .format(format) }
        guard let chain = object["attStmt"]?["x5c"]?.array?.compactMap(\.bytes), chain.count >= 2 else {
            throw .malformed("the attestation statement has no certificate chain")
        }
        guard let receipt = object["attStmt"]?["receipt"]?.bytes else { throw .malformed("the attestation statement has no receipt") }
        guard let authDataBytes = object["authData"]?.bytes else { throw .malformed("the attestation has no authData") }
        let authData: AuthenticatorData
        do { authData = try AuthenticatorData(authDataBytes) } catch { throw .malformed("\(error)") }
        guard let credential = authData.attestedCredential else { throw .malformed("the authenticator data hold no credential") }
        guard keyID.count == 32, clientDataHash.count == 32 else { throw .malformed("the key id and the client data hash are 32 bytes each") }

        // 1. The chain, from the credential certificate through the intermediates to a root, valid at `at`.
        let leaf: Certificate
        let intermediates: [Certificate]
        do {
            leaf = try Certificate(derEncoded: chain[0])
            intermediates = try chain.dropFirst().map { try Certificate(derEncoded: $0) }
        } catch {
            throw .malformed("a certificate of the chain is not DER X.509")
        }
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            if let at { RFC5280Policy(fixedExpiryValidationTime: at) } else { RFC5280Policy() }
        }
        if case .couldNotValidate(let failures) = await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates)) {
            throw .certificateChain(failures.first.map { "\($0.policyFailureReason)" } ?? "no path to a trusted root")
        }
        // 2–4. nonce = SHA-256(authData ‖ clientDataHash), equal to the octet string in the certificate's extension.
        let nonce = Array(SHA256.hash(data: authDataBytes + clientDataHash))
        guard let certified = try? Self.nonce(in: leaf), certified == nonce else { throw .nonce }
        // 5. SHA-256 of the credential certificate's public key (X9.63) is the key id.
        guard let publicKey = P256.Signing.PublicKey(leaf.publicKey)?.x963Representation, Array(SHA256.hash(data: publicKey)) == keyID else {
            throw .keyID
        }
        // 6. rpIdHash is SHA-256 of one of the apps' ids.
        guard let appID = apps.first(where: { Array(SHA256.hash(data: Array($0.utf8))) == authData.rpIDHash }) else { throw .appID }
        // 7–9. A new key: counter 0, the configured environment's aaguid, credential id = key id.
        guard authData.counter == 0 else { throw .counter(authData.counter, expectedAbove: nil) }
        guard credential.aaguid == environment.aaguid else { throw .environment }
        guard credential.credentialID == keyID else { throw .credentialID }
        return Verified(publicKey: Array(publicKey), appID: appID, environment: environment, receipt: receipt, counter: 0)
    }

    /// The octet string of extension 1.2.840.113635.100.8.2: `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    static func nonce(in certificate: Certificate) throws -> [UInt8]? {
        guard let value = certificate.extensions[oid: nonceExtension]?.value else { return nil }
        let root = try DER.parse(Array(value))
        return try DER.sequence(root, identifier: .sequence) { nodes in
            try DER.explicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { node in
                Array(try ASN1OctetString(derEncoded: node).bytes)
            }
        }
    }
}
