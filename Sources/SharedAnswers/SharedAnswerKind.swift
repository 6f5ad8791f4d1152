import Foundation
import Scheduling

/// One kind's rows in `upstream_answers` (every on-demand answer Pier keeps lives there, one row per kind and key):
/// read, store, and the kind's retention — an answer is deleted ``retention`` after it expired, and never more than
/// ``maxRows`` are kept (those that expire first go first), so random keys cannot fill the disk. The retention is
/// enforced on a store, at most every ten minutes per process: an idle server prunes nothing it would not have to.
public struct SharedAnswerKind: Sendable {
    public let kind: String
    /// How long an expired answer stays in PostgreSQL (served when the upstream fails) before it is deleted.
    public let retention: Duration
    /// The most answers of the kind kept in PostgreSQL.
    public let maxRows: Int
    public let store: SharedAnswerStore
    /// Rows stored (as of the last prune, plus what this process stored since) and when this process last pruned.
    private let rows = SharedValue<(count: Int, prunedAt: Date)>((0, .distantPast))

    public init(kind: String, store: SharedAnswerStore, retention: Duration = .seconds(30 * 86_400), maxRows: Int = 200_000) {
        self.kind = kind
        self.store = store
        self.retention = retention
        self.maxRows = maxRows
    }

    public func answer(_ key: String) async throws -> StoredAnswer? {
        try await store.answer(kind: kind, key: key)
    }

    /// Stores (replaces) the answer for `key`, then enforces the retention when it is due.
    public func store(_ answer: StoredAnswer, key: String, location: SharedAnswerLocation? = nil) async throws {
        try await store.store(answer, kind: kind, key: key, location: location)
        let due = rows.update { state in
            guard answer.fetchedAt.timeIntervalSince(state.prunedAt) > 600 else {
                state.count += 1
                return false
            }
            state.prunedAt = answer.fetchedAt
            return true
        }
        guard due else { return }
        try await store.prune(kind: kind, expiredBefore: answer.fetchedAt.addingTimeInterval(-retention.seconds), maxRows: maxRows)
        let count = try await store.summary(kind: kind).count
        rows.update { $0.count = count }
    }

    /// When the newest answer of the kind was fetched (`/health` after a restart); counts the rows.
    public func lastFetch() async throws -> Date? {
        let summary = try await store.summary(kind: kind)
        rows.update { $0.count = summary.count }
        return summary.lastFetch
    }

    /// Rows of the kind stored, as of the last count.
    public var count: Int { rows.value.count }
}
