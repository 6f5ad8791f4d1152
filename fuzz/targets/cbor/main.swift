import CBOR

// The hand-written CBOR decoder on arbitrary bytes (App Attest's attestation objects and assertions arrive from any
// client). Properties: no crash, no unbounded allocation; an item read as a prefix ends inside the input, a
// whole-input item is that prefix ending at the last byte, and writing it back and reading it again gives the same
// item. (Authenticator data, read by the AppAttest module, are fixed offsets checked by its tests; fuzzing them here
// would build BoringSSL under the sanitizers.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let prefix = try? CBORDecoder.decodePrefix(bytes)
    if let prefix { precondition(prefix.end > 0 && prefix.end <= bytes.count, "end \(prefix.end) of \(bytes.count)") }
    if let whole = try? CBORDecoder.decode(bytes) {
        precondition(prefix?.end == bytes.count && prefix?.0 == whole, "the whole item is not its prefix")
        let again = try? CBORDecoder.decode(CBOREncoder.encode(whole))
        precondition(again == whole, "written and read again, the item changed")
    }
    return 0
}
