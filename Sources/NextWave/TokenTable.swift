import AnswerCaching
import HTTPServer

/// Tokens (public keys, access tokens) verified before, each with what it verified as, looked up by the token's bytes
/// where they lie — in the request, nothing copied. An entry sits under the token's last eight bytes read as a number
/// (the end of its HMAC signature, which no two tokens share; the table hashes that number with the process's seed like
/// any key) and holds the whole token, compared with `memcmp` on a hit: two tokens under one slot are a miss and a
/// replacement, never a confusion. Hashed whole as a `Substring` a 300-byte token cost 4,000 instructions of every call,
/// its last 32 bytes through `Hasher` ~290, and a copy to key a dictionary 600; only tokens that verified are kept, so
/// nobody chooses what collides. Bounded like the answers (``BoundedTable``).
struct TokenTable<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var token: [UInt8]
        var value: Value
    }

    private var entries: BoundedTable<Int, Entry>

    init(entries: Int, bytes: Int) {
        self.entries = BoundedTable(entries: entries, bytes: bytes)
    }

    private static func slot(_ token: UnsafeBufferPointer<UInt8>) -> Int {
        guard token.count >= 8, let base = token.baseAddress else {
            // Shorter than any token that verifies: its bytes and length, only ever missed.
            return token.reduce(token.count) { $0 &* 31 &+ Int($1) }
        }
        return Int(truncatingIfNeeded: UnsafeRawPointer(base + token.count - 8).loadUnaligned(as: UInt64.self))
    }

    func value(for token: UnsafeBufferPointer<UInt8>) -> Value? {
        guard let entry = entries[Self.slot(token)], entry.token.count == token.count else { return nil }
        return entry.token.withUnsafeBufferPointer { ByteScan.equal($0, token) } ? entry.value : nil
    }

    func value(for token: Substring) -> Value? {
        var token = token
        return token.withUTF8 { value(for: $0) }
    }

    /// Keeps `value` for `token` (a copy of its own: the request's text it was cut from is not held with it), at `cost`
    /// bytes besides the token's.
    mutating func set(_ value: Value, for token: Substring, cost: Int) {
        var token = token
        token.withUTF8 { bytes in
            entries.set(Entry(token: Array(bytes), value: value), for: Self.slot(bytes), cost: bytes.count + cost)
        }
    }

}
