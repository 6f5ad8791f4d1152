import Foundation
import Geography
import UpstreamHTTP

/// What a feature supplies to the ``OnDemandCore`` for one kind of upstream answer: the key it is asked and stored
/// under, how it is stored, the upstream call, how long an answer holds and what it costs, and when a stale one may
/// still be served — in domain terms, never HTTP. Everything else (memory, single-flight, the budget and the daily
/// quota, refusals, stale marking, metrics, `/health`) is the engine's. A source whose answers a route sends as they
/// are adds how each is rendered (``OnDemandSource``, for the ``OnDemand`` adapter).
public protocol OnDemandValueSource: Sendable {
    /// One upstream request: what is asked, single-flighted, kept in memory and stored.
    associatedtype Key: Hashable & Sendable & CustomStringConvertible
    /// The checked answer, as the feature keeps it.
    associatedtype Value: Sendable

    /// The answer stored for `key` (PostgreSQL: another replica or an earlier run may have asked).
    func stored(_ key: Key) async throws -> OnDemandStored<Value>?
    /// Stores (replaces) the answer for `key`.
    func store(_ value: Value, for key: Key, fetchedAt: Date) async throws
    /// When the newest stored answer was fetched (for `/health` after a restart).
    func lastFetch() async throws -> Date?

    /// One upstream call, checked; anything else is thrown (a failed transfer or an unexpected status is
    /// `UpstreamError`; an answer that is not what was asked for, the feature's own problem).
    func fetch(_ key: Key) async throws -> UpstreamReply<Value>
    /// The same, knowing the newest answer held for `key` (memory's, else PostgreSQL's): a conditional request
    /// (`If-Modified-Since`) needs it, and the engine has it — a source keeps no copy of its own. By default ``fetch(_:)``.
    func fetch(_ key: Key, previous: Value?) async throws -> UpstreamReply<Value>
    /// What one call for `key` costs of the upstream's daily quota.
    func units(_ key: Key) -> Int

    /// Seconds `value` is fresh from when it was fetched.
    func lifetime(of value: Value, for key: Key, now: Date) -> TimeInterval
    /// Until when `value`, fetched at `fetchedAt`, is fresh: by default `fetchedAt` + ``lifetime(of:for:now:)``; an
    /// upstream that says so itself (MET Norway's `Expires`, confirmed again by a `304`) gives its own date.
    func freshUntil(_ value: Value, fetchedAt: Date, for key: Key, now: Date) -> Date
    /// Whether `value` may still be served stale when the upstream cannot be asked or fails.
    func mayServeStale(_ value: Value, now: Date) -> Bool
    /// A request for `key` missed memory; `last` is the newest answer known (memory or PostgreSQL), if any.
    func noteMiss(_ key: Key, last: Value?, now: Date)
    /// Bytes of memory `value` takes (roughly).
    func cost(of value: Value) -> Int

    /// Keys whose answer, while fresh, also answers `key` once cut (``cut(_:to:)``), the cheapest first: a larger
    /// stationboard for a smaller limit. None by default.
    func coverings(of key: Key) -> [Key]
    /// The answer for `key` cut from `value`, the answer of one of its ``coverings(of:)``; `nil` when it cannot be.
    func cut(_ value: Value, to key: Key) -> Value?

    /// Where `key` lies, for a source whose keys are places (weather's cells): memory then finds the answers held near a
    /// point (``OnDemandCore/nearestHeld(to:within:freshSince:excluding:)``). `nil` by default.
    func location(of key: Key) -> Coordinate?

    /// What a failure is, for the logs: a state that names nothing a user asked (no point, no URL with one in it).
    func state(of error: any Error) -> String

    /// More members of the source's `/health` object (`ttl_s`), and of its `cache` object (`stops`); `nil`: none.
    func health() -> (any Encodable & Sendable)?
    func cacheHealth(keysHeld: Int) -> (any Encodable & Sendable)?
}

/// An ``OnDemandValueSource`` whose answers routes send as rendered by the ``OnDemand`` adapter: what a route asks
/// (a key and how to render it) and the rendering, in domain terms; the adapter makes the HTTP answer once.
public protocol OnDemandSource: OnDemandValueSource {
    /// What a route asks: the key and how to render it (a mode filter); the key itself by default.
    associatedtype Request: Hashable & Sendable = Key

    /// The key whose answer `request` is rendered from.
    func key(of request: Request) -> Key
    /// Every request rendered from `key` (their renderings are dropped when the key's answer changes).
    func requests(of key: Key) -> [Request]

    /// What `request` is answered with, made from `value` at `now`.
    func render(_ value: Value, for request: Request, now: Date) -> OnDemandRendering
    /// Renderings made under another version are made again (new ship data for the stationboard's ship names).
    var renderingVersion: Int { get }

    /// The sentence a `503` starts with (`no lake weather available for this point`).
    var nothingToServe: String { get }
    /// Whether answers say how old their data is (`Age`, with `max-age` counted from the fetch).
    var reportsAge: Bool { get }
}

extension OnDemandSource where Request == Key {
    public func key(of request: Request) -> Key { request }
    public func requests(of key: Key) -> [Request] { [key] }
}

extension OnDemandValueSource {
    public func units(_ key: Key) -> Int { 1 }
    public func fetch(_ key: Key, previous: Value?) async throws -> UpstreamReply<Value> { try await fetch(key) }
    public func freshUntil(_ value: Value, fetchedAt: Date, for key: Key, now: Date) -> Date {
        fetchedAt.addingTimeInterval(lifetime(of: value, for: key, now: now))
    }
    public func mayServeStale(_ value: Value, now: Date) -> Bool { true }
    public func noteMiss(_ key: Key, last: Value?, now: Date) {}
    public func coverings(of key: Key) -> [Key] { [] }
    public func cut(_ value: Value, to key: Key) -> Value? { nil }
    public func location(of key: Key) -> Coordinate? { nil }
    public func state(of error: any Error) -> String { (error as? UpstreamError)?.state ?? "\(error)" }
    public func health() -> (any Encodable & Sendable)? { nil }
    public func cacheHealth(keysHeld: Int) -> (any Encodable & Sendable)? { nil }
}

extension OnDemandSource {
    public var renderingVersion: Int { 0 }
    public var nothingToServe: String { "nothing stored for this request" }
    public var reportsAge: Bool { false }
}

/// An answer as a store gives it back.
public struct OnDemandStored<Value: Sendable>: Sendable {
    public var value: Value
    public var fetchedAt: Date

    public init(_ value: Value, fetchedAt: Date) {
        self.value = value
        self.fetchedAt = fetchedAt
    }
}
