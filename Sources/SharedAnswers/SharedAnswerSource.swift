import Foundation
import OnDemand

/// Upstream answers that change slowly (places, geocoding, encyclopaedia pages) as the ``OnDemand`` engine asks
/// for them: kept in `upstream_answers` under the source's kind (``SharedAnswerKind``: retention and row limit),
/// each fresh until its own `expiresAt` (the client says how long).
public struct SharedAnswerSource<Key: SharedAnswerKey>: OnDemandSource {
    public let answers: SharedAnswerKind
    public var kind: String { answers.kind }
    private let fetcher: @Sendable (Key) async throws -> UpstreamReply<StoredAnswer>
    private let renderer: @Sendable (StoredAnswer) -> OnDemandRendering
    private let unitsOf: @Sendable (Key) -> Int

    /// - Parameters:
    ///   - units: what one call for a key costs of the upstream's daily quota (one unit by default).
    ///   - fetch: one upstream call (the feature's client); it checks the answer and says how long it holds.
    ///   - render: what a request is answered with: by default the body as the document, whatever the outcome.
    public init(
        kind: String, store: SharedAnswerStore, retention: Duration = .seconds(30 * 86_400), maxRows: Int = 200_000,
        units: @escaping @Sendable (Key) -> Int = { _ in 1 },
        fetch: @escaping @Sendable (Key) async throws -> UpstreamReply<StoredAnswer>,
        render: @escaping @Sendable (StoredAnswer) -> OnDemandRendering = { .document($0.body) }
    ) {
        answers = SharedAnswerKind(kind: kind, store: store, retention: retention, maxRows: maxRows)
        unitsOf = units
        fetcher = fetch
        renderer = render
    }

    public func stored(_ key: Key) async throws -> OnDemandStored<StoredAnswer>? {
        try await answers.answer(key.storageKey).map { OnDemandStored($0, fetchedAt: $0.fetchedAt) }
    }

    public func store(_ answer: StoredAnswer, for key: Key, fetchedAt: Date) async throws {
        try await answers.store(answer, key: key.storageKey, location: key.location)
    }

    public func lastFetch() async throws -> Date? {
        try await answers.lastFetch()
    }

    public func fetch(_ key: Key) async throws -> UpstreamReply<StoredAnswer> { try await fetcher(key) }

    public func units(_ key: Key) -> Int { unitsOf(key) }

    public func lifetime(of answer: StoredAnswer, for key: Key, now: Date) -> TimeInterval {
        answer.expiresAt.timeIntervalSince(answer.fetchedAt)
    }

    public func cost(of answer: StoredAnswer) -> Int { answer.body.count + 256 }

    public func render(_ answer: StoredAnswer, for key: Key, now: Date) -> OnDemandRendering { renderer(answer) }

    public func cacheHealth(keysHeld: Int) -> (any Encodable & Sendable)? { Stored(stored: answers.count) }

    /// The answers of its kind PostgreSQL holds (`stored`, in the `cache` object).
    struct Stored: Encodable, Sendable {
        let stored: Int
    }
}
