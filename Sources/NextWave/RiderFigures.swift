import Foundation
import Postgres
import Synchronization

/// A rider's own figures — `user_wave_stats`, `user_station_counts`, `user_verified_stats` — held from the first ask
/// until that rider's history changes (the archive, their verified session, their deletion; on any replica), so the
/// app's "My Badges", opened again and again, costs PostgreSQL one query per function and change. Bounded in entries
/// and bytes: past either, everything starts over (with its memory given back).
final class RiderFigures: Sendable {
    struct Bounds: Sendable {
        var entries = 100_000
        var bytes = 32 << 20
    }

    private struct Key: Hashable, Sendable {
        var user: String
        var function: String
    }

    private struct State {
        /// Bumped by every change: an answer read before it is not kept.
        var generation: UInt64 = 0
        var answers: [Key: String] = [:]
        var bytes = 0
    }

    private let state = Mutex(State())
    private let pool: PostgresPool
    let bounds: Bounds

    init(pool: PostgresPool, bounds: Bounds = Bounds()) {
        self.pool = pool
        self.bounds = bounds
    }

    /// `function`'s rows for `user` when memory holds them.
    func held(_ function: String, user: String) -> String? {
        state.withLock { $0.answers[Key(user: user, function: function)] }
    }

    /// `function`'s rows for `user`: held, or read with `sql` (`$1` the user) and kept.
    func answer(_ function: String, user: String, sql: String) async throws -> String {
        let key = Key(user: user, function: function)
        let (held, generation) = state.withLock { ($0.answers[key], $0.generation) }
        if let held { return held }
        let body = try await pool.query(CommunitySQL.aggregate(sql), [user])[0].decode(String.self, "body")
        let cost = body.utf8.count + user.utf8.count + function.utf8.count + 3 * MemoryLayout<String>.size
        state.withLock { state in
            guard state.generation == generation, cost <= bounds.bytes else { return }
            if state.answers.count >= bounds.entries || state.bytes + cost > bounds.bytes {
                state.answers = [:]
                state.bytes = 0
            }
            if state.answers.updateValue(body, forKey: key) == nil { state.bytes += cost }
        }
        return body
    }

    /// `users`' histories changed (`nil`: anybody's — the archive, another replica's change).
    func changed(_ users: [String]?) {
        state.withLock { state in
            state.generation &+= 1
            guard let users else {
                state.answers = [:]
                state.bytes = 0
                return
            }
            for user in users {
                for function in CommunityFunctions.riderOwn {
                    if let body = state.answers.removeValue(forKey: Key(user: user, function: function)) {
                        state.bytes -= body.utf8.count + user.utf8.count + function.utf8.count + 3 * MemoryLayout<String>.size
                    }
                }
            }
        }
    }

    var held: (entries: Int, bytes: Int) { state.withLock { ($0.answers.count, $0.bytes) } }
}
