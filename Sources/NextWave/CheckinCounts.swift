import AnswerCaching
import Basics
import Foundation
import Postgres
import PostgRESTFormat
import Synchronization

/// `wave_checkin_counts` answered from memory between check-ins: each wave's count and chosen names, as PostgREST
/// wrote the function's rows, held until a check-in or check-out anywhere (this replica's, or another's through the
/// change feed) or until the wave's departure passes (a departed wave's check-ins no longer count). The app asks for
/// every visible departure on each refresh and on every change of any check-in, so most asks find every wave here.
///
/// Everything held is keyed by what a request means — the distinct wave ids, sorted (``Waves``) — never by its bytes,
/// and bounded in bytes as well as in entries: a stranger who pads or reorders a body finds the same answer, and one
/// who invents waves fills at most the bounds, after which everything starts over (with its memory given back).
final class CheckinCounts: Sendable {
    /// The waves a request names, as the set they mean.
    typealias Waves = WaveIDs

    /// What memory may hold: whole answers and single waves, each bounded in entries and in bytes.
    struct Bounds: Sendable {
        /// Whole answers (one per board and day the apps look at) and what they may take, keys included.
        var answers = 10_000
        var answerBytes = 16 << 20
        /// Waves (a busy day's boards hold a few thousand) and what their rows may take.
        var waves = 50_000
        var waveBytes = 16 << 20
    }

    private struct Entry: Sendable {
        /// The function's row for the wave, or `nil`: nobody is checked in (the function leaves the wave out).
        var json: String?
        /// Seconds since 1970 when the first of its check-ins' departures passes.
        var validUntil: Double

        var bytes: Int { (json?.utf8.count ?? 0) + MemoryLayout<Entry>.size }
    }

    private struct Answer: Sendable {
        var body: [UInt8]
        var validUntil: Double
    }

    private struct State {
        var generation: UInt64 = 0
        var entries: BoundedTable<String, Entry>
        var answers: BoundedTable<Waves, Answer>
    }

    private let state: Mutex<State>
    private let pool: PostgresPool

    init(pool: PostgresPool, bounds: Bounds = Bounds()) {
        self.pool = pool
        state = Mutex(State(
            entries: BoundedTable(entries: bounds.waves, bytes: bounds.waveBytes), answers: BoundedTable(entries: bounds.answers, bytes: bounds.answerBytes)))
    }

    /// The answer for `waves` when memory holds it whole or holds every one of its waves (then it is kept whole).
    func answer(_ waves: Waves, now: Double = Date().timeIntervalSince1970) -> [UInt8]? {
        state.withLock { state in
            if let held = state.answers[waves], held.validUntil > now { return held.body }
            var rows: [String] = []
            var validUntil = Double.infinity
            for wave in waves.ids {
                guard let entry = state.entries[wave], entry.validUntil > now else { return nil }
                if let json = entry.json { rows.append(json) }
                validUntil = min(validUntil, entry.validUntil)
            }
            let answer = Array(Self.array(rows).utf8)
            state.answers.set(Answer(body: answer, validUntil: validUntil), for: waves, cost: answer.count + waves.bytes)
            return answer
        }
    }

    /// The answer for `waves`, reading from PostgreSQL what memory lacks, and keeping it unless check-ins changed meanwhile.
    func load(_ waves: Waves) async throws -> String {
        let generation = state.withLock { $0.generation }
        let ids = waves.ids
        let rows = try await pool.query(
            """
            SELECT s.wave_id, row_to_json(r)::text AS json, s.first FROM (
                SELECT wave_id, count(*) AS count,
                       coalesce(array_agg(display_name ORDER BY created_at, user_id) FILTER (WHERE display_name IS NOT NULL), '{}') AS names,
                       extract(epoch FROM min(departure_at))::float8 AS first
                FROM nextwave_checkins WHERE wave_id = ANY($1::text[]) AND departure_at >= now() GROUP BY wave_id) s,
            LATERAL (SELECT s.wave_id, s.count, s.names) r
            """, [PostgresArray.literal(ids)])
        var found: [String: Entry] = [:]
        for row in rows {
            found[try row.decode(String.self, "wave_id")] = Entry(json: try row.decode(String.self, "json"), validUntil: try row.decode(Double.self, "first"))
        }
        let entries = ids.map { found[$0] ?? Entry(json: nil, validUntil: .infinity) }
        state.withLock { state in
            guard state.generation == generation else { return }
            for (wave, entry) in zip(ids, entries) { state.entries.set(entry, for: wave, cost: wave.utf8.count + entry.bytes) }
        }
        return Self.array(entries.compactMap(\.json))
    }

    /// What memory holds now: entries and bytes (the tests read it).
    var held: (answers: Int, answerBytes: Int, waves: Int, waveBytes: Int) {
        state.withLock { ($0.answers.count, $0.answers.bytes, $0.entries.count, $0.entries.bytes) }
    }

    /// Check-ins changed somewhere: nothing held is trusted any more.
    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll()
            state.answers.removeAll()
        }
    }

    /// Rows joined as PostgreSQL's `json_agg` joins them (PostgREST's bytes).
    static func array(_ rows: [String]) -> String {
        "[" + rows.joined(separator: ", \n ") + "]"
    }
}
