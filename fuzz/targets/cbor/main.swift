import AppAttest

// The hand-written CBOR decoder and the authenticator-data reader on arbitrary bytes (App Attest's attestation
// objects and assertions arrive from any client). Properties: no crash, no unbounded allocation; an item read as a
// prefix ends inside the input, and a whole-input item is that prefix ending at the last byte; authenticator data
// read from the input keep its fixed fields.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let prefix = try? CBORDecoder.decodePrefix(bytes)
    if let prefix { precondition(prefix.end > 0 && prefix.end <= bytes.count, "end \(prefix.end) of \(bytes.count)") }
    if let whole = try? CBORDecoder.decode(bytes) {
        precondition(prefix?.end == bytes.count && prefix?.0 == whole, "the whole item is not its prefix")
    }
    if let authData = try? AuthenticatorData(bytes) {
        precondition(authData.rpIDHash == Array(bytes[0..<32]) && authData.flags == bytes[32], "fixed fields moved")
        if let credential = authData.attestedCredential {
            precondition(credential.aaguid.count == 16 && credential.credentialID.count <= bytes.count - 55, "credential bounds")
        }
    }
    return 0
}
