import Glibc

/// A token (a public key, an access token) as a table's key, its bytes copied from wherever it was read: hashed by its
/// last 32 bytes — the end of its HMAC signature, which no two tokens share — and compared whole with `memcmp`. Hashed
/// whole as a `Substring` (normalised as Unicode on the way), a 300-byte token cost 4,000 instructions of every call;
/// the tables that use it keep only tokens that verified, so nobody chooses keys that collide.
struct TokenKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = Array(bytes) }

    init(_ text: Substring) { bytes = Array(text.utf8) }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0.suffix(32))) }
    }

    static func == (lhs: TokenKey, rhs: TokenKey) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                guard let a = left.baseAddress, let b = right.baseAddress else { return true }
                return memcmp(a, b, left.count) == 0
            }
        }
    }
}
