import AnswerCaching
import Basics
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
        var answers: BoundedTable<Key, String>
    }

    private let state: Mutex<State>
    private let pool: PostgresPool

    init(pool: PostgresPool, bounds: Bounds = Bounds()) {
        self.pool = pool
        state = Mutex(State(answers: BoundedTable(entries: bounds.entries, bytes: bounds.bytes)))
    }

    /// `function`'s rows for `user` when memory holds them.
    func held(_ function: String, user: String) -> String? {
        state.withLock { $0.answers[Key(user: user, function: function)] }
    }

    /// `function`'s rows for `user` read with `sql` (`$1` the user), and kept unless a change came meanwhile.
    func load(_ function: String, user: String, sql: String) async throws -> String {
        let generation = state.withLock { $0.generation }
        let body = try await pool.query(CommunitySQL.aggregate(sql), [user])[0].decode(String.self, "body")
        state.withLock { state in
            guard state.generation == generation else { return }
            state.answers.set(body, for: Key(user: user, function: function), cost: body.utf8.count + user.utf8.count + function.utf8.count + 3 * MemoryLayout<String>.size)
        }
        return body
    }

    /// `users`' histories changed (`nil`: anybody's — the archive, another replica's change).
    func changed(_ users: [String]?) {
        state.withLock { state in
            state.generation &+= 1
            guard let users else { return state.answers.removeAll() }
            for user in users {
                for function in CommunityFunctions.riderOwn { state.answers.remove(Key(user: user, function: function)) }
            }
        }
    }
}
