import SwiftASN1

/// An attestation's `x5c` as Apple writes it: exactly two certificates — the credential certificate, issued by Apple's
/// intermediate, and that intermediate, issued by a root — read for their names only (no signature, no key). What
/// does not have this shape is refused before any signature is checked, so verifying an attestation is one path of
/// two signatures to a root, never a search among certificates the sender chose (a set of keys cross-signed under
/// one name made swift-certificates' path building try on the order of K!·K² signatures).
public struct CertificateChainShape: Sendable, Equatable {
    /// DER of the credential certificate and of the intermediate.
    public var leaf: [UInt8]
    public var intermediate: [UInt8]
    /// The intermediate's issuer's name (DER): the root it must be one step from.
    public var rootName: [UInt8]

    /// Certificates larger than this are not Apple's (theirs are under 1 KB).
    public static let maximumCertificateBytes = 4096

    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case certificate(String)
        case names(String)

        public var description: String {
            switch self {
            case let .certificate(reason), let .names(reason): reason
            }
        }
    }

    public init(leaf: [UInt8], intermediate: [UInt8]) throws(Problem) {
        let leafNames = try Self.names(leaf, "the credential certificate")
        let intermediateNames = try Self.names(intermediate, "the intermediate")
        guard leafNames.issuer == intermediateNames.subject else { throw .names("the credential certificate is not issued by the intermediate") }
        guard intermediateNames.issuer != intermediateNames.subject else { throw .names("the intermediate issued itself") }
        guard leafNames.subject != leafNames.issuer else { throw .names("the credential certificate issued itself") }
        self.leaf = leaf
        self.intermediate = intermediate
        rootName = intermediateNames.issuer
    }

    /// The issuer's and the subject's names (DER) of a certificate:
    /// `SEQUENCE { SEQUENCE { [0] version?, serial, signature, issuer, validity, subject, … }, algorithm, signature }`.
    public static func names(_ der: [UInt8], _ which: String) throws(Problem) -> (issuer: [UInt8], subject: [UInt8]) {
        guard der.count <= maximumCertificateBytes else { throw .certificate("\(which) is \(der.count) bytes, more than \(maximumCertificateBytes)") }
        do {
            let certificate = try DER.parse(der)
            guard certificate.identifier == .sequence, case .constructed(let parts) = certificate.content,
                let tbs = parts.first(where: { _ in true }), tbs.identifier == .sequence, case .constructed(let fields) = tbs.content
            else { throw Problem.certificate("\(which) is not an X.509 certificate") }
            var remaining = Array(fields)
            if let first = remaining.first, first.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) { remaining.removeFirst() }
            // serial, signature algorithm, issuer, validity, subject
            guard remaining.count >= 5, remaining[2].identifier == .sequence, remaining[4].identifier == .sequence else {
                throw Problem.certificate("\(which) is not an X.509 certificate")
            }
            return (Array(remaining[2].encodedBytes), Array(remaining[4].encodedBytes))
        } catch let problem as Problem {
            throw problem
        } catch {
            throw .certificate("\(which) is not DER")
        }
    }
}
