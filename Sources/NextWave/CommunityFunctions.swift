import HTTPServer
import Postgres
import PostgRESTFormat

/// The functions the apps call through `/rest/v1/rpc/<name>`, each answering an array of rows as PostgREST did. The
/// caller's statistics, stations and verified figures are their own (the user is the token's, never an argument); the
/// functions the app's backend left callable by anyone (another user's statistics, badge pushes, the archive) are not
/// served. `wave_checkin_counts` is answered by ``CheckinCounts``.
enum CommunityFunctions {
    static let counts = WaveIDs.function
    static let stats = "user_wave_stats"
    static let leaderboard = "wave_leaderboard"
    static let stations = "user_station_counts"
    static let verified = "user_verified_stats"

    static let names = [counts, stats, leaderboard, stations, verified]

    /// The function a path's `{function}` bytes name, compared where they lie: one of ``names`` itself (so the
    /// comparisons with it that follow are of one `String` with itself), `nil` for none.
    static func named(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        names.first { name in name.utf8.count == bytes.count && name.utf8.withContiguousStorageIfAvailable { ByteScan.equal($0, bytes) } ?? false }
    }
    /// The caller's own figures, held by ``RiderFigures``.
    static let riderOwn = [stats, stations, verified]

    /// The 18 statistics of `$1`'s rides (`wave_history`, Europe/Zurich time) and verified sessions, as the app's
    /// `user_wave_stats` defined them last (verified sessions add to the total, the stations and the lakes only).
    /// Only the rides `bounds` believe count.
    static func statsSQL(_ bounds: RideBounds) -> String { """
        WITH h AS \(bounds.history(where: "user_id = $1::uuid")),
        v AS (SELECT station_id, lake_id FROM \(bounds.verified(where: "user_id = $1::uuid")) vs),
        places AS (SELECT station_id, lake_id FROM h UNION ALL SELECT station_id, lake_id FROM v WHERE station_id IS NOT NULL),
        weeks AS (SELECT DISTINCT date_trunc('week', local)::date AS week FROM h),
        islands AS (
            SELECT count(*)::int AS length, max(week) AS last
            FROM (SELECT week, week - (row_number() OVER (ORDER BY week) * 7)::int AS island FROM weeks) w GROUP BY island)
        SELECT
            ((SELECT count(*) FROM h) + (SELECT count(*) FROM v))::int AS total_waves,
            (SELECT count(DISTINCT station_id) FROM places)::int AS distinct_stations,
            (SELECT count(DISTINCT lake_id) FROM places)::int AS distinct_lakes,
            coalesce((SELECT max(n) FROM (SELECT count(*) AS n FROM places GROUP BY station_id) s), 0)::int AS max_waves_one_station,
            (SELECT count(*) FROM h WHERE is_first_of_day)::int AS first_of_day_count,
            (SELECT count(*) FROM h WHERE is_last_of_day)::int AS last_of_day_count,
            (SELECT count(*) FROM h WHERE local::time < '08:00')::int AS early_bird_count,
            (SELECT count(*) FROM h WHERE local::time >= '11:30' AND local::time < '13:30')::int AS lunch_count,
            (SELECT count(*) FROM h WHERE local::time >= '19:00')::int AS night_owl_count,
            (SELECT count(*) FROM h WHERE extract(isodow FROM local) IN (6, 7))::int AS weekend_count,
            coalesce((SELECT max(n) FROM (SELECT count(*) AS n FROM h GROUP BY local::date) d), 0)::int AS max_waves_one_day,
            coalesce((SELECT max(local::date) >= min(local::date) + 365 FROM h), false) AS has_anniversary,
            (SELECT count(*) FROM h WHERE peer_count = 1)::int AS solo_count,
            coalesce((SELECT max(peer_count) FROM h), 0)::int AS max_peer_count,
            (SELECT count(*) FROM h WHERE was_first_checkin AND peer_count >= 3)::int AS trendsetter_count,
            coalesce((SELECT array_agg(DISTINCT CASE WHEN extract(month FROM local) IN (3, 4, 5) THEN 'spring'
                                                      WHEN extract(month FROM local) IN (6, 7, 8) THEN 'summer'
                                                      WHEN extract(month FROM local) IN (9, 10, 11) THEN 'autumn'
                                                      ELSE 'winter' END) FROM h), '{}'::text[]) AS seasons_ridden,
            coalesce((SELECT length FROM islands
                      WHERE last >= date_trunc('week', now() AT TIME ZONE 'Europe/Zurich')::date - 7 ORDER BY last DESC LIMIT 1), 0) AS current_streak_weeks,
            coalesce((SELECT max(length) FROM islands), 0) AS longest_streak_weeks
        """
    }

    static func stationsSQL(_ bounds: RideBounds) -> String { """
        SELECT station_id, count(*)::int AS waves FROM (
            SELECT station_id FROM \(bounds.history(where: "user_id = $1::uuid")) h
            UNION ALL SELECT station_id FROM \(bounds.verified(where: "user_id = $1::uuid")) v WHERE station_id IS NOT NULL) s
        GROUP BY station_id ORDER BY waves DESC, station_id
        """
    }

    static func verifiedSQL(_ bounds: RideBounds) -> String { """
        SELECT count(*)::int AS session_count, coalesce(sum(total_distance), 0)::float8 AS total_distance_m,
               coalesce(max(longest_ride), 0)::float8 AS longest_ride_m, coalesce(max(max_speed), 0)::float8 AS max_speed_ms,
               count(DISTINCT station_id)::int AS distinct_stations
        FROM \(bounds.verified(where: "user_id = $1::uuid")) v
        """
    }

    /// The parameters each function but the counts takes (the leaderboard's; the others take none).
    static let leaderboardParameters = ["p_station_id", "p_limit"]

    /// The leaderboard's longest list (the app asks for 50).
    static let maximumLeaderboard = 200

    /// The largest body the functions but the counts read (``WaveIDs/maximumBody``): what their arguments can need — a
    /// station id and a limit, or `{}` — with room for whitespace.
    static let maximumBody = 1024
}
