import Basics
import Foundation
import Postgres
import Synchronization

/// `wave_checkin_counts` answered from memory between check-ins: each wave's count and chosen names, as PostgREST
/// wrote the function's rows, held until a check-in or check-out anywhere (this replica's, or another's through the
/// change feed) or until the wave's departure passes (a departed wave's check-ins no longer count). The app asks for
/// every visible departure on each refresh and on every change of any check-in, so most asks find every wave here.
final class CheckinCounts: Sendable {
    private struct Entry: Sendable {
        /// The function's row for the wave, or `nil`: nobody is checked in (the function leaves the wave out).
        var json: String?
        /// Seconds since 1970 when the first of its check-ins' departures passes.
        var validUntil: Double
    }

    private struct State {
        var generation: UInt64 = 0
        var entries: [String: Entry] = [:]
        /// Whole answers by the request's body: the phones at one board send the same bytes, so most asks are one
        /// lookup, without reading the JSON again.
        var answers: [Body: (body: [UInt8], validUntil: Double)] = [:]
    }

    /// A request body as a key, hashed as one run of bytes (an array of bytes hashes byte by byte: a few percent of an
    /// ask's time).
    private struct Body: Hashable {
        var bytes: [UInt8]
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    /// Whole answers held at most (one per board and day the apps look at).
    static let answerCapacity = 10_000

    /// Waves held at most: past it, everything is forgotten (a busy day's boards hold a few thousand).
    static let capacity = 50_000
    /// Waves one ask may name (a day's departures at a station).
    static let maximumWaves = 500

    private let state = Mutex(State())
    private let pool: PostgresPool

    init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The answer held for a request whose body was `body` before, while still valid.
    func answer(body: [UInt8], now: Double = Date().timeIntervalSince1970) -> [UInt8]? {
        state.withLock { state in
            guard let held = state.answers[Body(bytes: body)], held.validUntil > now else { return nil }
            return held.body
        }
    }

    /// The answer for `waves` (distinct, in the order asked) when memory holds every one of them; kept for `body`.
    func answer(_ waves: [String], body: [UInt8] = [], now: Double = Date().timeIntervalSince1970) -> [UInt8]? {
        state.withLock { state in
            var rows: [String] = []
            var validUntil = Double.infinity
            for wave in waves {
                guard let entry = state.entries[wave], entry.validUntil > now else { return nil }
                if let json = entry.json { rows.append(json) }
                validUntil = min(validUntil, entry.validUntil)
            }
            let answer = Array(Self.array(rows).utf8)
            if !body.isEmpty {
                if state.answers.count >= Self.answerCapacity { state.answers.removeAll(keepingCapacity: true) }
                state.answers[Body(bytes: body)] = (answer, validUntil)
            }
            return answer
        }
    }

    /// The answer for `waves`, reading from PostgreSQL what memory lacks, and keeping it unless check-ins changed meanwhile.
    func load(_ waves: [String]) async throws -> String {
        let generation = state.withLock { $0.generation }
        let rows = try await pool.query(
            """
            SELECT s.wave_id, row_to_json(r)::text AS json, s.first FROM (
                SELECT wave_id, count(*) AS count,
                       coalesce(array_agg(display_name ORDER BY created_at, user_id) FILTER (WHERE display_name IS NOT NULL), '{}') AS names,
                       extract(epoch FROM min(departure_at))::float8 AS first
                FROM nextwave_checkins WHERE wave_id = ANY($1::text[]) AND departure_at >= now() GROUP BY wave_id) s,
            LATERAL (SELECT s.wave_id, s.count, s.names) r
            """, [PostgresArray.literal(waves)])
        var found: [String: Entry] = [:]
        for row in rows {
            found[try row.decode(String.self, "wave_id")] = Entry(json: try row.decode(String.self, "json"), validUntil: try row.decode(Double.self, "first"))
        }
        let entries = waves.map { found[$0] ?? Entry(json: nil, validUntil: .infinity) }
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count + waves.count > Self.capacity { state.entries.removeAll(keepingCapacity: true) }
            for (wave, entry) in zip(waves, entries) { state.entries[wave] = entry }
        }
        return Self.array(entries.compactMap(\.json))
    }

    /// Check-ins changed somewhere: nothing held is trusted any more.
    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll(keepingCapacity: true)
            state.answers.removeAll(keepingCapacity: true)
        }
    }

    /// Rows joined as PostgreSQL's `json_agg` joins them (PostgREST's bytes).
    static func array(_ rows: [String]) -> String {
        "[" + rows.joined(separator: ", \n ") + "]"
    }
}
