import AnswerCaching
import Basics
import Foundation
import Postgres
import Synchronization

/// `wave_leaderboard` from memory: each board (overall, or one station's) is every ranked rider's total, computed from
/// PostgreSQL when the history changed (the archive, a verified session, a name, a rider deleted — here or on another
/// replica) and then served to every caller with their own row patched in, so a call costs no query. After a change a
/// board is computed again at most once per ``Bounds/refresh`` (a change a second would otherwise make every call a
/// query); until then the board before it answers. The boards are bounded in count and bytes (a station is whatever
/// text a caller names): past either, the stations' boards start over.
final class Leaderboard: Sendable {
    struct Bounds: Sendable {
        var boards = 1_000
        var bytes = 64 << 20
        /// Callers' answers kept (a rider's app asks again on every refresh of its leaderboard) and what they may take.
        var answers = 20_000
        var answerBytes = 32 << 20
        /// The shortest time between two computations of one board.
        var refresh: Double = 10
    }

    /// One ranked rider: competition ranking by rides, ties ordered by user id (as the SQL it replaces ordered them).
    struct Rider: Sendable, Equatable {
        var user: String
        var total: Int
        var rank: Int
    }

    /// A board: the riders in order, where each user stands, and the names (shared by all boards of a generation).
    struct Board: Sendable {
        var riders: [Rider]
        var position: [String: Int]
        var names: Names
        var generation: UInt64
        var computedAt: Double
        /// The rows of the first riders as another caller sees them, written once (a call copies them: the longest list
        /// and the one row the caller's own may leave out).
        var top = TopRows()

        var bytes: Int { riders.count * (MemoryLayout<Rider>.size + 2 * 40) + top.bytes.count + top.ends.count * 8 }
    }

    /// The first rows written one after the other with their separators, so that a call copies at most two runs of
    /// bytes (the rows before the caller's and those after it) instead of a row at a time.
    struct TopRows: Sendable {
        private(set) var bytes: [UInt8] = []
        /// Where each row ends in ``bytes``.
        private(set) var ends: [Int] = []

        var count: Int { ends.count }

        mutating func append(_ row: some Sequence<UInt8>) {
            if !ends.isEmpty { bytes.append(contentsOf: Leaderboard.separator) }
            bytes.append(contentsOf: row)
            ends.append(bytes.count)
        }

        /// Rows `range` with the separators between them.
        func run(_ range: Range<Int>) -> ArraySlice<UInt8> {
            guard let last = range.last else { return [] }
            let start = range.lowerBound == 0 ? 0 : ends[range.lowerBound - 1] + Leaderboard.separator.count
            return bytes[start..<ends[last]]
        }
    }

    /// Every chosen name by user (the leaderboard shows "Anonymous", and the caller "You", for the others).
    final class Names: Sendable {
        let byUser: [String: String]
        let generation: UInt64
        init(_ byUser: [String: String], generation: UInt64) {
            self.byUser = byUser
            self.generation = generation
        }
    }

    /// A board's station (`nil`: the overall board).
    private typealias Key = String?

    /// A caller's answer as it was written from a board: the same board, limit and caller find it again.
    private struct Asked: Hashable, Sendable {
        var station: String?
        var limit: Int
        var user: String

        /// The user by its last sixteen bytes (a UUID Pier issued: random hex digits), the station by its own hash;
        /// `==` compares all of it. Hashed whole, the 36-byte id was ~340 instructions of every call.
        func hash(into hasher: inout Hasher) {
            hasher.combine(limit)
            hasher.combine(station)
            var user = user
            user.withUTF8 { bytes in
                guard bytes.count >= 16, let base = bytes.baseAddress else { return hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
                hasher.combine(UnsafeRawPointer(base + bytes.count - 16).loadUnaligned(as: UInt64.self))
                hasher.combine(UnsafeRawPointer(base + bytes.count - 8).loadUnaligned(as: UInt64.self))
            }
        }
    }

    private struct Answer: Sendable {
        var body: [UInt8]
        /// The board it was written from (a board is replaced whole: its generation and when it was computed tell it).
        var generation: UInt64
        var computedAt: Double
    }

    private struct State {
        var generation: UInt64 = 0
        /// The overall board (every rider's "Leaderboard" opens it), apart from the stations': never started over with them.
        var overall: Board?
        var stations: BoundedTable<String, Board>
        var names: Names?
        /// Boards being computed, each with the generation it reads.
        var computing: [Key: (generation: UInt64, task: Task<Board, any Error>)] = [:]
        /// The generation of the last ``forget()``: nothing read before it is joined or kept.
        var forgotten: UInt64 = 0
        /// Callers' answers, until a board is replaced (then all go: their memory is given back at once).
        var answers: BoundedTable<Asked, Answer>

        func board(_ key: Key) -> Board? { key.map { stations[$0] } ?? overall }

        mutating func keep(_ board: Board, for key: Key) {
            answers.removeAll()
            guard let station = key else { return overall = board }
            stations.set(board, for: station, cost: board.bytes + station.utf8.count)
        }
    }

    private let state: Mutex<State>
    private let pool: PostgresPool
    private let rides: RideBounds
    let bounds: Bounds

    init(pool: PostgresPool, rides: RideBounds, bounds: Bounds = Bounds()) {
        self.pool = pool
        self.rides = rides
        self.bounds = bounds
        state = Mutex(State(
            stations: BoundedTable(entries: bounds.boards, bytes: bounds.bytes), answers: BoundedTable(entries: bounds.answers, bytes: bounds.answerBytes)))
    }

    /// The history or a name changed: every board is computed again (once its refresh interval has passed).
    func changed() {
        state.withLock { $0.generation &+= 1 }
    }

    /// A rider is gone: every board is computed again at its next ask, whatever the refresh interval.
    func forget() {
        state.withLock { state in
            state.generation &+= 1
            state.forgotten = state.generation
            state.overall = nil
            state.stations.removeAll()
            state.answers.removeAll()
            state.names = nil
        }
    }

    /// The rows PostgREST wrote for `wave_leaderboard(p_station_id, p_limit)` called by `user`: everybody else up to
    /// `limit`, then the caller's own row — or, for a caller without a ride, a row ranked after everybody with 0 rides
    /// ("Not ranked yet" in the app).
    func answer(station: String?, limit: Int, user: String, now: Double = Double(MonotonicClock.now()) / 1e9) async throws -> [UInt8] {
        Self.rows(of: try await board(station, now: now), limit: limit, user: user)
    }

    /// The same answer when memory holds the board (no suspension: most calls): as written for this caller before from
    /// the same board, else written now and kept (bounded like the boards; a board replaced takes its answers with it).
    func held(station: String?, limit: Int, user: String, now: Double = Double(MonotonicClock.now()) / 1e9) -> [UInt8]? {
        let asked = Asked(station: station, limit: limit, user: user)
        let (board, kept): (Board?, [UInt8]?) = state.withLock { state in
            guard let board = Self.current(state.board(station), in: state, now: now, refresh: bounds.refresh) else { return (nil, nil) }
            if let answer = state.answers[asked], answer.generation == board.generation, answer.computedAt == board.computedAt {
                return (nil, answer.body)
            }
            return (board, nil)
        }
        if let kept { return kept }
        guard let board else { return nil }
        let body = Self.rows(of: board, limit: limit, user: user)
        state.withLock { state in
            // Kept only while the board it was written from is still the one held.
            guard let current = state.board(station), current.generation == board.generation, current.computedAt == board.computedAt else { return }
            state.answers.set(
                Answer(body: body, generation: board.generation, computedAt: board.computedAt), for: asked,
                cost: body.count + user.utf8.count + (station?.utf8.count ?? 0) + MemoryLayout<Answer>.size)
        }
        return body
    }

    private static func current(_ board: Board?, in state: State, now: Double, refresh: Double) -> Board? {
        guard let board, board.generation == state.generation || now - board.computedAt < refresh else { return nil }
        return board
    }

    private static func rows(of board: Board, limit: Int, user: String) -> [UInt8] {
        let mine = board.position[user]
        // Everybody else up to `limit`: the rows before the caller's and, past it, as many as it left room for.
        let before: Range<Int>, after: Range<Int>
        if let mine, mine < board.top.count, mine <= limit {
            before = 0..<mine
            after = min(mine + 1, board.top.count)..<min(limit + 1, board.top.count)
        } else {
            before = 0..<min(limit, board.top.count)
            after = 0..<0
        }
        let name = board.names.byUser[user] ?? "You"
        let me = mine.map { board.riders[$0] } ?? Rider(user: user, total: 0, rank: board.riders.count + 1)
        var body: [UInt8] = []
        body.reserveCapacity(board.top.run(before).count + board.top.run(after).count + 2 * separator.count + 128 + name.utf8.count * 6)
        body.append(0x5B)
        if !before.isEmpty {
            body.append(contentsOf: board.top.run(before))
            body.append(contentsOf: separator)
        }
        if !after.isEmpty {
            body.append(contentsOf: board.top.run(after))
            body.append(contentsOf: separator)
        }
        Self.row(into: &body, rank: me.rank, name: name, total: me.total, isMe: true)
        body.append(0x5D)
        return body
    }

    /// Between two rows, as PostgreSQL's `json_agg` writes it (``CheckinCounts/array(_:)``).
    fileprivate static let separator = Array(", \n ".utf8)

    /// The board held for `key` when it is current (or was computed within the refresh interval), else computed once
    /// for all who ask meanwhile.
    private func board(_ key: Key, now: Double) async throws -> Board {
        let (held, task): (Board?, Task<Board, any Error>?) = state.withLock { state in
            if let board = Self.current(state.board(key), in: state, now: now, refresh: bounds.refresh) { return (board, nil) }
            if let running = state.computing[key], running.generation >= state.forgotten { return (nil, running.task) }
            let generation = state.generation
            let names = state.names.flatMap { $0.generation == generation ? $0 : nil }
            let task = Task { [self] in try await compute(key, generation: generation, names: names) }
            state.computing[key] = (generation, task)
            return (nil, task)
        }
        if let held { return held }
        guard let task else { throw CancellationError() }
        do {
            let board = try await task.value
            store(board, for: key, now: now)
            return board
        } catch {
            state.withLock { state in
                if state.computing[key]?.task == task { state.computing.removeValue(forKey: key) }
            }
            throw error
        }
    }

    private func store(_ board: Board, for key: Key, now: Double) {
        var board = board
        board.computedAt = now
        state.withLock { state in
            if state.computing[key]?.generation == board.generation { state.computing.removeValue(forKey: key) }
            // Read before a rider was deleted: answered to whoever waited for it, never kept.
            guard board.generation >= state.forgotten else { return }
            if board.names.generation == state.generation { state.names = board.names }
            state.keep(board, for: key)
        }
    }

    private func compute(_ key: Key, generation: UInt64, names: Names?) async throws -> Board {
        let rows = try await pool.query(
            """
            SELECT user_id::text AS user_id, count(*)::int AS total FROM (
                SELECT user_id FROM \(rides.history(where: "$1::text IS NULL OR station_id = $1")) h
                UNION ALL SELECT user_id FROM \(rides.verified(where: "$1::text IS NULL OR station_id = $1")) v) t
            GROUP BY user_id ORDER BY total DESC, user_id
            """, [key])
        var riders: [Rider] = []
        riders.reserveCapacity(rows.count)
        var position: [String: Int] = [:]
        for row in rows {
            let total = try row.decode(Int.self, "total")
            let rank = riders.last.map { $0.total == total ? $0.rank : riders.count + 1 } ?? 1
            let user = try row.decode(String.self, "user_id")
            position[user] = riders.count
            riders.append(Rider(user: user, total: total, rank: rank))
        }
        let known: Names
        if let names { known = names } else {
            var byUser: [String: String] = [:]
            for row in try await pool.query("SELECT user_id::text AS user_id, display_name FROM nextwave_profiles WHERE display_name IS NOT NULL") {
                byUser[try row.decode(String.self, "user_id")] = try row.decode(String.self, "display_name")
            }
            known = Names(byUser, generation: generation)
        }
        var top = TopRows()
        for rider in riders.prefix(CommunityFunctions.maximumLeaderboard + 1) {
            var row: [UInt8] = []
            Self.row(into: &row, rank: rider.rank, name: known.byUser[rider.user] ?? "Anonymous", total: rider.total, isMe: false)
            top.append(row)
        }
        return Board(riders: riders, position: position, names: known, generation: generation, computedAt: 0, top: top)
    }

    /// One row as PostgreSQL's `row_to_json` writes it (a name holds no control character: ``DisplayName``), written
    /// straight into the answer (the caller's own row is written at every call).
    static func row(into body: inout [UInt8], rank: Int, name: String, total: Int, isMe: Bool) {
        JSONWriter.append(to: &body) { json in
            json.object { json in
                json.member("rank", rank)
                json.member("display_name", name)
                json.member("total_waves", total)
                json.member("is_me", isMe)
            }
        }
    }
}
