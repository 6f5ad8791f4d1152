import HTTPServer

// Query strings and percent-decoding. Properties: a decoded value re-encoded and decoded again is the same;
// there are never more pairs than `&`-separated parts (bytes: the parser splits at the byte).

private func encode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            out += "%" + String(byte, radix: 16, uppercase: true).leftPadded
        }
    }
    return out
}

extension String {
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let query = QueryParameters(raw: Substring(text)) {
        precondition(query.pairs.count <= text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).count, "more pairs than parts")
        for pair in query.pairs {
            precondition(PercentDecoding.decode(Substring(encode(pair.value)), plusIsSpace: true) == pair.value, "round trip of \(pair.value)")
        }
    }
    if let decoded = PercentDecoding.decode(Substring(text), plusIsSpace: false) {
        precondition(PercentDecoding.decode(Substring(encode(decoded)), plusIsSpace: false) == decoded, "round trip")
    }
    return 0
}
