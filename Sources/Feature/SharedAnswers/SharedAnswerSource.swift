import Foundation
import Scheduling
import Synchronization

/// Upstream answers that change slowly (places, geocoding, encyclopaedia pages) as the ``OnDemand`` engine asks
/// for them: kept in `upstream_answers` under the source's kind, each fresh until its own `expiresAt` (the
/// client says how long), deleted ``retention`` after that, and never more than ``maxRows`` of them (those that
/// expire first go first): random keys cannot fill the disk.
public struct SharedAnswerSource<Key: SharedAnswerKey>: OnDemandSource {
    public let kind: String
    /// How long an expired answer stays in PostgreSQL (served when the upstream fails) before it is deleted.
    public let retention: Duration
    /// The most answers of the kind kept in PostgreSQL (enforced with the retention, every ten minutes).
    public let maxRows: Int
    private let store: SharedAnswerStore
    private let fetcher: @Sendable (Key) async throws -> UpstreamReply<StoredAnswer>
    private let renderer: @Sendable (StoredAnswer) -> OnDemandRendering
    private let unitsOf: @Sendable (Key) -> Int
    /// Rows stored (as of the last prune, plus what this process stored since) and when this process last pruned.
    private let rows = SharedValue<(count: Int, prunedAt: Date)>((0, .distantPast))

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
        self.kind = kind
        self.store = store
        self.retention = retention
        self.maxRows = maxRows
        unitsOf = units
        fetcher = fetch
        renderer = render
    }

    public func stored(_ key: Key) async throws -> OnDemandStored<StoredAnswer>? {
        try await store.answer(kind: kind, key: key.storageKey).map { OnDemandStored($0, fetchedAt: $0.fetchedAt) }
    }

    public func store(_ answer: StoredAnswer, for key: Key, fetchedAt: Date) async throws {
        try await store.store(answer, kind: kind, key: key.storageKey, location: key.location)
        try await pruneIfDue(now: fetchedAt)
    }

    public func lastFetch() async throws -> Date? {
        let summary = try await store.summary(kind: kind)
        rows.update { $0.count = summary.count }
        return summary.lastFetch
    }

    public func fetch(_ key: Key) async throws -> UpstreamReply<StoredAnswer> { try await fetcher(key) }

    public func units(_ key: Key) -> Int { unitsOf(key) }

    public func lifetime(of answer: StoredAnswer, for key: Key, now: Date) -> TimeInterval {
        answer.expiresAt.timeIntervalSince(answer.fetchedAt)
    }

    public func cost(of answer: StoredAnswer) -> Int { answer.body.count + 256 }

    public func render(_ answer: StoredAnswer, for key: Key, now: Date) -> OnDemandRendering { renderer(answer) }

    public func cacheMembers(keysHeld: Int) -> String { ",\"stored\":\(rows.value.count)" }

    /// Enforces the retention at most every ten minutes per process (on a store, so an idle server prunes
    /// nothing it would not have to).
    private func pruneIfDue(now: Date) async throws {
        let due = rows.update { state in
            guard now.timeIntervalSince(state.prunedAt) > 600 else {
                state.count += 1
                return false
            }
            state.prunedAt = now
            return true
        }
        guard due else { return }
        try await store.prune(kind: kind, expiredBefore: now.addingTimeInterval(-retention.seconds), maxRows: maxRows)
        let count = try await store.summary(kind: kind).count
        rows.update { $0.count = count }
    }
}
