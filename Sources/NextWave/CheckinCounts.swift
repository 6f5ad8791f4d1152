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
    }

    /// Waves held at most: past it, everything is forgotten (a busy day's boards hold a few thousand).
    static let capacity = 50_000
    /// Waves one ask may name (a day's departures at a station).
    static let maximumWaves = 500

    private let state = Mutex(State())
    private let pool: PostgresPool

    init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The answer for `waves` (distinct, in the order asked) when memory holds every one of them.
    func answer(_ waves: [String], now: Double = Date().timeIntervalSince1970) -> String? {
        state.withLock { state in
            var rows: [String] = []
            for wave in waves {
                guard let entry = state.entries[wave], entry.validUntil > now else { return nil }
                if let json = entry.json { rows.append(json) }
            }
            return Self.array(rows)
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
        }
    }

    /// Rows joined as PostgreSQL's `json_agg` joins them (PostgREST's bytes).
    static func array(_ rows: [String]) -> String {
        "[" + rows.joined(separator: ", \n ") + "]"
    }
}
