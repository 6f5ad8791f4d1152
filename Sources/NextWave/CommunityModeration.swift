import Foundation
import Postgres

/// What an operator does to a rider (`pier nextwave names`, `clear-name`, `delete-user`): find a chosen name, take it
/// away, or delete the rider with everything about them. Each change is announced in its transaction as a route's
/// would be, so every running replica drops what it holds of it (a board, the counts' names) — the command needs no
/// restart and no SQL.
enum CommunityModeration {
    /// A rider's chosen name, as the leaderboard shows it.
    struct Named: Sendable, Equatable {
        var user: String
        var name: String
    }

    /// The most a search lists: an operator narrows the text rather than reads thousands.
    static let listed = 100

    /// Riders whose chosen name holds `text` (any case), newest names first.
    static func names(holding text: String, in pool: PostgresPool) async throws -> [Named] {
        let pattern = "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        return try await pool.query(
            """
            SELECT user_id::text AS user_id, display_name FROM nextwave_profiles
            WHERE display_name ILIKE $1 ORDER BY updated_at DESC, user_id LIMIT \(listed)
            """, [pattern]
        ).map { try Named(user: $0.decode(String.self, "user_id"), name: $0.decode(String.self, "display_name")) }
    }

    /// Takes `user`'s chosen name away: from the leaderboard and from their live check-ins (which carry the name the
    /// app sent). The rider may choose another; the app shows one without a name as it shows a new rider. `false`: no
    /// such rider.
    static func clearName(of user: String, in pool: PostgresPool) async throws -> Bool {
        guard UUID(uuidString: user) != nil else { return false }
        return try await pool.transaction { connection in
            guard try !connection.query("SELECT 1 FROM nextwave_users WHERE id = $1::uuid", [user]).isEmpty else { return false }
            let profiles = try connection.execute(
                "UPDATE nextwave_profiles SET display_name = NULL, updated_at = now() WHERE user_id = $1::uuid AND display_name IS NOT NULL", [user])
            // The check-ins' own notices tell every replica's counts (their declared columns: Migrations/NextWave).
            try connection.execute("UPDATE nextwave_checkins SET display_name = NULL WHERE user_id = $1::uuid AND display_name IS NOT NULL", [user])
            if profiles > 0 { try CommunityChange.names.announce(on: connection) }
            return true
        }
    }
}
