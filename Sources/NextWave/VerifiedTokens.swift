import AnswerCaching
import Basics
import Foundation
import Synchronization

/// Access tokens verified before, with the caller each names, until the token expires: a signed-in app sends the same
/// token with every call for its hour, and its signature and claims cost more than the rest of a call answered from
/// memory (base64, HMAC, JSON). Keyed by their bytes (``TokenTable``); only tokens that verified are kept — nobody can fill it without signing up — and it is
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

    private let tokens: Mutex<TokenTable<Held>>

    init(bounds: Bounds = Bounds()) {
        tokens = Mutex(TokenTable(entries: bounds.entries, bytes: bounds.bytes))
    }

    /// The caller `token` (its bytes where they lie) was verified as, while it has not expired.
    func caller(of token: UnsafeBufferPointer<UInt8>, now: Int64) -> CommunityCaller? {
        guard let held = tokens.withLock({ $0.value(for: token) }), held.expires > now else { return nil }
        return held.caller
    }

    func caller(of token: Substring, now: Int64) -> CommunityCaller? {
        var token = token
        return token.withUTF8 { caller(of: $0, now: now) }
    }

    /// Keeps a token that verified as `caller` until `expires`.
    func keep(_ token: Substring, as caller: CommunityCaller, until expires: Int64) {
        tokens.withLock { $0.set(Held(caller: caller, expires: expires), for: token, cost: 128) }
    }
}
