import AppAttestFormat

// App Attest's attestation object as anyone may send it to POST /v1/app-attest/register, read up to the point where
// signatures would be checked: CBOR, the statement, an `x5c` array of any length and any entries, the certificates'
// outer DER and names, the authenticator data. Properties: no crash, no unbounded work; whatever is accepted has
// Apple's shape — two certificates, each within the size bound, the first issued by the second, which did not issue
// itself — so that the only path verification can follow is those two to a root.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let object = try? AttestationObject(bytes) else { return 0 }
    let chain = object.chain
    precondition(chain.leaf.count <= CertificateChainShape.maximumCertificateBytes && chain.intermediate.count <= CertificateChainShape.maximumCertificateBytes)
    let leaf = try? CertificateChainShape.names(chain.leaf, "leaf"), intermediate = try? CertificateChainShape.names(chain.intermediate, "intermediate")
    precondition(leaf?.issuer == intermediate?.subject && intermediate?.issuer == chain.rootName, "accepted a chain that is not one path")
    precondition(intermediate?.issuer != intermediate?.subject, "accepted a self-issued intermediate")
    precondition(object.format == "apple-appattest" && object.credential == object.authData.attestedCredential)
    return 0
}
