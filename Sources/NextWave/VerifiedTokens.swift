import AnswerCaching
import Basics
import Foundation
import Synchronization

/// Access tokens verified before, with the caller each names, until the token expires: a signed-in app sends the same
/// token with every call for its hour, and its signature and claims cost more than the rest of a call answered from
/// memory (base64, HMAC, JSON). Only tokens that verified are kept — nobody can fill it without signing up — and it is
/// bounded in entries and bytes all the same: past either it starts over, with its memory given back.
final class VerifiedTokens: Sendable {
    struct Bounds: Sendable {
        var entries = 20_000
        var bytes = 16 << 20
    }

    private struct Held: Sendable {
        var caller: CommunityCaller
        /// Seconds since 1970.
        var expires: Int64
    }

    /// A token as a key: hashed by its last 32 bytes — the end of its HMAC signature, which no two tokens share —
    /// and compared whole, as bytes. Hashed whole as a `Substring` (normalised as Unicode on the way), a 300-byte
    /// token cost 4,000 instructions of every call; only tokens that verified are kept, so nobody chooses the keys.
    struct Key: Hashable, Sendable {
        let token: Substring

        func hash(into hasher: inout Hasher) {
            var token = token
            token.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0.suffix(32)))) }
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            var (left, right) = (lhs.token, rhs.token)
            return left.withUTF8 { left in
                right.withUTF8 { right in
                    guard left.count == right.count, let a = left.baseAddress, let b = right.baseAddress else { return left.count == right.count }
                    return memcmp(a, b, left.count) == 0
                }
            }
        }
    }

    private let tokens: Mutex<BoundedTable<Key, Held>>

    init(bounds: Bounds = Bounds()) {
        tokens = Mutex(BoundedTable(entries: bounds.entries, bytes: bounds.bytes))
    }

    /// The caller `token` was verified as, while it has not expired.
    func caller(of token: Substring, now: Int64) -> CommunityCaller? {
        tokens.withLock { tokens in
            guard let held = tokens[Key(token: token)], held.expires > now else { return nil }
            return held.caller
        }
    }

    /// Keeps a token that verified as `caller` until `expires`.
    func keep(_ token: Substring, as caller: CommunityCaller, until expires: Int64) {
        // A copy of its own: the request's text it was cut from is not held with it.
        tokens.withLock { $0.set(Held(caller: caller, expires: expires), for: Key(token: Substring(String(token))), cost: token.utf8.count + 128) }
    }
}
