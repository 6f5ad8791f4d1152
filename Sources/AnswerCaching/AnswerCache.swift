import Foundation
import HTTPServer

/// Ready-encoded answers (``CachedResponse``: its ETag made once) by what a request means, each until its own deadline:
/// the one in-memory answer cache the routes use where they hold whole answers (Ships' and Lakes' variants, the sun's
/// dated answers, a lake's level history). Bounded in entries and in bytes — an answer costs its body, its headers and
/// its key — so nobody grows it by inventing keys: past either bound it starts over and gives its memory back
/// (``BoundedTable``: cheaper than LRU bookkeeping on every hit; a cleared cache costs one rebuild per key in use).
///
/// Its key is what the request means (a parsed date and point, a lake and a day count), never the request's bytes:
/// `lat=47.0` and `lat=47.00` are one answer.
public final class AnswerCache<Key: Hashable & Sendable>: Sendable {
    /// What an answer costs beside its body: its headers and the table's bookkeeping.
    @usableFromInline static var overhead: Int { 256 }

    @usableFromInline
    struct Held: Sendable {
        @usableFromInline var answer: CachedResponse
        @usableFromInline var until: Date

        @inlinable
        init(answer: CachedResponse, until: Date) {
            self.answer = answer
            self.until = until
        }
    }

    // Inlinable (with AnswerTable): specialized for the caller's key, a hit holds the lock for one dictionary lookup.
    @usableFromInline let table: AnswerTable<Key, Held>

    /// What the answers held may cost at most.
    public let budgetBytes: Int

    public init(entries: Int, bytes: Int) {
        table = AnswerTable(entries: entries, bytes: bytes)
        budgetBytes = bytes
    }

    /// The answer held for `key` while `now` is before its deadline.
    @inlinable
    public func answer(for key: Key, now: Date = Date()) -> CachedResponse? {
        guard let held = table[key], now < held.until else { return nil }
        return held.answer
    }

    /// Holds `answer` for `key` until `until`; `keyBytes`: what the key holds beyond its inline size (a lake's name).
    @inlinable
    public func keep(_ answer: CachedResponse, for key: Key, until: Date = .distantFuture, keyBytes: Int = 0) {
        let cost = answer.response.body.count + keyBytes + MemoryLayout<Key>.size + Self.overhead
        table.set(Held(answer: answer, until: until), for: key, cost: cost)
    }

    /// Forgets every answer (the data changed), giving the memory back.
    public func removeAll() {
        table.removeAll()
    }

    /// What the answers held cost, and how many there are.
    public var bytes: Int { table.bytes }
    public var count: Int { table.count }
}
