import AppAttestFormat
import CBOR
import Crypto
import Foundation

/// Verifies an App Attest assertion (Apple: "Verify the assertion"): ECDSA P-256 over
/// SHA-256(authenticatorData ‖ SHA-256(clientData)) with the device's stored key, the app id, and a counter strictly
/// greater than the last one accepted (the caller stores the new one, compare-and-set).
public enum AssertionVerifier {
    /// The assertion's counter, when every check passes.
    public static func verify(
        assertion: [UInt8], clientData: [UInt8], publicKey: [UInt8], appID: String, previousCounter: UInt32
    ) throws(AppAttestFailure) -> UInt32 {
        let object: CBOR
        do { object = try CBORDecoder.decode(assertion) } catch { throw .malformed("the assertion is not CBOR: \(error)") }
        guard let signatureBytes = object["signature"]?.bytes, let authDataBytes = object["authenticatorData"]?.bytes else {
            throw .malformed("the assertion has no signature or authenticatorData")
        }
        let authData: AuthenticatorData
        do { authData = try AuthenticatorData(authDataBytes) } catch { throw .malformed("\(error)") }
        guard let key = try? P256.Signing.PublicKey(x963Representation: publicKey) else { throw .malformed("the stored public key is not P-256") }
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signatureBytes) else {
            throw .malformed("the signature is not a DER ECDSA signature")
        }
        // The signature is ECDSA with SHA-256 over the nonce itself (the nonce hashed once more), as CryptoKit's
        // `isValidSignature(_:for: Data)` in Apple's own example does.
        let nonce = Array(SHA256.hash(data: authDataBytes + Array(SHA256.hash(data: clientData))))
        guard key.isValidSignature(signature, for: nonce) else { throw .signature }
        guard Array(SHA256.hash(data: Array(appID.utf8))) == authData.rpIDHash else { throw .appID }
        guard authData.counter > previousCounter else { throw .counter(authData.counter, expectedAbove: previousCounter) }
        return authData.counter
    }
}
