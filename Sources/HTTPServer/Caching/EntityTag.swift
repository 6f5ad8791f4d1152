/// Strong entity tags for ready-encoded bodies, and `If-None-Match` evaluation (RFC 9110 §13.1.2).
public enum EntityTag {
    /// A quoted tag derived from the bytes (64-bit FNV-1a): equal bodies give equal tags in every process,
    /// so replicas behind one proxy agree.
    public static func make(for body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Whether an `If-None-Match` field value matches `tag` (weak comparison, `*` matches any).
    public static func matches(ifNoneMatch field: String, tag: String) -> Bool {
        let bare = opaque(Substring(tag))
        for candidate in field.split(separator: ",") {
            let trimmed = candidate.trimmingSpaces()
            if trimmed == "*" || opaque(trimmed) == bare { return true }
        }
        return false
    }

    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
