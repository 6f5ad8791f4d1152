import Postgres

/// The community's users as a whole: how many there are, and the idle ones who left nothing, deleted by the nightly
/// job (and `pier nextwave archive`) so that sign-ups nobody uses do not pile up.
enum CommunityUsers {
    /// Deletes the anonymous users who left nothing — no check-in, ride, badge, device, name or verified session —
    /// and have neither signed in nor refreshed a session for `idleDays` days, with their sessions and refresh tokens
    /// (cascading). An install not opened for a month that never checked in would sign up again: it loses nothing.
    /// Returns how many went.
    static func prune(idleDays: Int, in pool: PostgresPool) async throws -> Int {
        try await pool.execute(
            """
            DELETE FROM nextwave_users u
            WHERE u.last_sign_in_at < now() - make_interval(days => $1) AND u.created_at < now() - make_interval(days => $1)
              AND NOT EXISTS (SELECT 1 FROM nextwave_sessions s WHERE s.user_id = u.id AND s.refreshed_at >= now() - make_interval(days => $1))
              AND NOT EXISTS (SELECT 1 FROM nextwave_checkins c WHERE c.user_id = u.id)
              AND NOT EXISTS (SELECT 1 FROM nextwave_history h WHERE h.user_id = u.id)
              AND NOT EXISTS (SELECT 1 FROM nextwave_badges b WHERE b.user_id = u.id)
              AND NOT EXISTS (SELECT 1 FROM nextwave_devices d WHERE d.user_id = u.id)
              AND NOT EXISTS (SELECT 1 FROM nextwave_profiles p WHERE p.user_id = u.id)
              AND NOT EXISTS (SELECT 1 FROM nextwave_verified_sessions v WHERE v.user_id = u.id)
            """, [idleDays])
    }

    /// How many users there are (`/health`).
    static func count(in pool: PostgresPool) async throws -> Int {
        try await pool.query("SELECT count(*)::int AS n FROM nextwave_users")[0].decode(Int.self, "n")
    }

}
