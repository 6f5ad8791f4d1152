import AppAttestFormat
import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies an App Attest attestation completely — every check Apple lists ("Validating apps that connect to your
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

    /// The trust anchors with their subjects' DER, which an intermediate's issuer must equal.
    private let roots: [(certificate: Certificate, name: [UInt8])]

    /// - Parameter roots: the trust anchors — Apple's App Attestation Root CA, or a test's own root.
    public init(roots: [Certificate]) {
        self.roots = roots.map { root in
            var serializer = DER.Serializer()
            return (root, (try? serializer.serialize(root.subject)).map { serializer.serializedBytes } ?? [])
        }
    }

    /// Apple's root, parsed from ``AppleAppAttestationRoot/pem``.
    public static func appleRoot() throws -> Certificate {
        try Certificate(pemEncoded: AppleAppAttestationRoot.pem)
    }

    /// - Parameters:
    ///   - clientDataHash: SHA-256 of the bytes the app passed to `attestKey` (the server's challenge).
    ///   - apps: the `TEAMID.bundle.id`s accepted.
    ///   - environments: those accepted; the attestation's aaguid says which it was made in.
    ///   - at: the instant the certificates must be valid at: `nil`, now; a recorded instant to replay a recording.
    ///
    /// Cheapest first: the object's and the chain's shape (no signature: ``AttestationObject``), then the checks that
    /// cost a hash (nonce, key id, app id, counter, environment, credential id), and only then the two signatures
    /// of the one path to a root. Each must pass, so the order changes the cost of a refusal, not its outcome.
    public func verify(
        attestation: [UInt8], keyID: [UInt8], clientDataHash: [UInt8], apps: [String], environments: [AppAttestEnvironment], at: Date? = nil
    ) async throws(AppAttestFailure) -> Verified {
        let object: AttestationObject
        do { object = try AttestationObject(attestation) } catch {
            switch error {
            case .malformed(let reason): throw .malformed(reason)
            case .format(let format): throw .format(format)
            case .chainShape(let reason): throw .chainShape(reason)
            }
        }
        guard keyID.count == 32, clientDataHash.count == 32 else { throw .malformed("the key id and the client data hash are 32 bytes each") }
        let leaf: Certificate, intermediate: Certificate
        do {
            leaf = try Certificate(derEncoded: object.chain.leaf)
            intermediate = try Certificate(derEncoded: object.chain.intermediate)
        } catch {
            throw .malformed("a certificate of the chain is not DER X.509")
        }
        // nonce = SHA-256(authData ‖ clientDataHash), equal to the octet string in the certificate's extension.
        let nonce = Array(SHA256.hash(data: object.authDataBytes + clientDataHash))
        guard let certified = try? Self.nonce(in: leaf), certified == nonce else { throw .nonce }
        // SHA-256 of the credential certificate's public key (X9.63) is the key id.
        guard let publicKey = P256.Signing.PublicKey(leaf.publicKey)?.x963Representation, Array(SHA256.hash(data: publicKey)) == keyID else {
            throw .keyID
        }
        // rpIdHash is SHA-256 of one of the apps' ids.
        guard let appID = apps.first(where: { Array(SHA256.hash(data: Array($0.utf8))) == object.authData.rpIDHash }) else { throw .appID }
        // A new key: counter 0, an accepted environment's aaguid, credential id = key id.
        guard object.authData.counter == 0 else { throw .counter(object.authData.counter, expectedAbove: nil) }
        guard let environment = environments.first(where: { $0.aaguid == object.credential.aaguid }) else { throw .environment }
        guard object.credential.credentialID == keyID else { throw .credentialID }

        // The one path: credential certificate → intermediate → the root named as the intermediate's issuer, valid at
        // `at`. With a single intermediate and only the roots of that name, path building has nothing to search.
        let candidates = roots.filter { $0.name == object.chain.rootName }.map(\.certificate)
        guard !candidates.isEmpty else { throw .certificateChain("the intermediate is not issued by a trusted root") }
        var verifier = Verifier(rootCertificates: CertificateStore(candidates)) {
            if let at { RFC5280Policy(fixedExpiryValidationTime: at) } else { RFC5280Policy() }
        }
        if case .couldNotValidate(let failures) = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate])) {
            throw .certificateChain(failures.first.map { "\($0.policyFailureReason)" } ?? "no path to a trusted root")
        }
        return Verified(publicKey: Array(publicKey), appID: appID, environment: environment, receipt: object.receipt, counter: 0)
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
