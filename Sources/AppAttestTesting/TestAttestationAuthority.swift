import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority of a test's own that issues App Attest credential certificates the way Apple's does
/// (root → intermediate → credential certificate with the nonce extension), so that tests — and the whole flow
/// through the real binary, with its test-only root setting — can attest keys of their own. Never linked into the
/// executable.
public struct TestAttestationAuthority: Sendable {
    public let root: Certificate
    let intermediate: Certificate
    private let intermediateKey: P256.Signing.PrivateKey

    /// - Parameter validFrom: the certificates' start (they hold three days from it, as Apple's credential
    ///   certificates do; the root and the intermediate for ten years).
    public init(validFrom: Date = Date().addingTimeInterval(-3600)) throws {
        let rootKey = P256.Signing.PrivateKey()
        let key = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Pier Test App Attestation Root CA") }
        let name = try DistinguishedName { CommonName("Pier Test App Attestation CA 1") }
        let tenYears = validFrom.addingTimeInterval(10 * 365 * 86_400)
        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: validFrom, notValidAfter: tenYears,
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            }, issuerPrivateKey: .init(rootKey))
        intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: validFrom, notValidAfter: tenYears,
            issuer: rootName, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            }, issuerPrivateKey: .init(rootKey))
        intermediateKey = key
        self.validFrom = validFrom
    }

    private let validFrom: Date

    /// The root as PEM (what the test-only root setting reads).
    public var rootPEM: String {
        get throws { try root.serializeAsPEM().pemString }
    }

    /// The DER chain of a credential certificate for `publicKey` certifying `nonce` (leaf first), as `x5c` carries it.
    func chain(for publicKey: P256.Signing.PublicKey, nonce: [UInt8]) throws -> [[UInt8]] {
        let subject = try DistinguishedName {
            CommonName(SHA256.hash(data: publicKey.x963Representation).map { String(format: "%02x", $0) }.joined())
            OrganizationalUnitName("AAA Certification")
        }
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            try sequence.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) { tagged in
                try tagged.serialize(ASN1OctetString(contentBytes: ArraySlice(nonce)))
            }
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(publicKey), notValidBefore: validFrom,
            notValidAfter: validFrom.addingTimeInterval(3 * 86_400), issuer: intermediate.subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Certificate.Extension(oid: [1, 2, 840, 113_635, 100, 8, 2], critical: false, value: ArraySlice(serializer.serializedBytes))
            }, issuerPrivateKey: .init(intermediateKey))
        return try [leaf, intermediate].map { certificate in
            var der = DER.Serializer()
            try der.serialize(certificate)
            return der.serializedBytes
        }
    }

    /// What an attacker sends to make path building search: `keys` keys, each certified by every one of them under one
    /// name (keys² CA certificates, DER). swift-certificates' depth-first search tried on the order of keys!·keys²
    /// signatures for such a set (8 keys: 64 certificates, 25 KB, eleven minutes of a core).
    public static func crossSigned(keys count: Int) throws -> [[UInt8]] {
        let keys = (0..<count).map { _ in P256.Signing.PrivateKey() }
        let name = try DistinguishedName { CommonName("Pier Test App Attestation CA 1") }
        let now = Date()
        var certificates: [[UInt8]] = []
        for subject in keys {
            for issuer in keys {
                let certificate = try Certificate(
                    version: .v3, serialNumber: .init(), publicKey: .init(subject.publicKey), notValidBefore: now.addingTimeInterval(-3600),
                    notValidAfter: now.addingTimeInterval(86_400), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                    extensions: try Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) },
                    issuerPrivateKey: .init(issuer))
                var der = DER.Serializer()
                try der.serialize(certificate)
                certificates.append(der.serializedBytes)
            }
        }
        return certificates
    }
}
