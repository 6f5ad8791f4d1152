import Foundation
import Postgres

/// The demo's community (`pier serve --demo`): six riders with a season of ridden waves on three lakes, their names,
/// the badges that history earns, and check-ins on this evening's departures from Zürich Bürkliplatz — so the
/// leaderboard, the statistics and the counts have something to show. Made again at every start (the demo's riders
/// have fixed ids; their times move with today), beside whatever the demo's visitors signed up.
enum DemoCommunity {
    /// The demo's JWT secret (``NextWaveFeature/demoSettings``); docs/api.md gives the public key signed with it.
    static let secret = "pier-demo-jwt-secret-never-use-it-in-production"

    /// Rider, name (nil: anonymous), rides in the season.
    static let riders: [(id: String, name: String?, rides: Int)] = [
        ("d0000000-0000-4000-8000-000000000001", "Lisa", 64),
        ("d0000000-0000-4000-8000-000000000002", "Marco", 41),
        ("d0000000-0000-4000-8000-000000000003", nil, 27),
        ("d0000000-0000-4000-8000-000000000004", "Chiara 🏄‍♀️", 27),
        ("d0000000-0000-4000-8000-000000000005", "Sven", 9),
        ("d0000000-0000-4000-8000-000000000006", "Noah", 1),
    ]

    /// Where the demo's riders ride: station id as the app builds it, the wave id's station part (its UIC number, or
    /// its name without one), lake.
    static let stations = [
        ("Zürich Bürkliplatz (See)_8503651", "8503651", "Zürichsee"), ("Thalwil (See)_8503674", "8503674", "Zürichsee"),
        ("Wädenswil (See)", "Wädenswil (See)", "Zürichsee"), ("Luzern Bahnhofquai", "Luzern Bahnhofquai", "Vierwaldstättersee"), ("Thun", "Thun", "Thunersee"),
    ]

    static func seed(pool: PostgresPool, now: Date = Date()) async throws {
        let ids = PostgresArray.literal(riders.map(\.id))
        try await pool.transaction { connection in
            try connection.execute("DELETE FROM nextwave_users WHERE id = ANY($1::uuid[])", [ids])
            try connection.execute(
                "INSERT INTO nextwave_users (id, created_at) SELECT id, $2::timestamptz - interval '150 days' FROM unnest($1::uuid[]) id",
                [ids, now])
            for (index, rider) in riders.enumerated() {
                if let name = rider.name {
                    try connection.execute("INSERT INTO nextwave_profiles (user_id, display_name) VALUES ($1::uuid, $2)", [rider.id, name])
                }
                // Ride n: n days back spread over the season, a departure between 10:00 and 19:30 Swiss time, mostly at
                // the rider's home station; the wave's riders 1 to 6.
                try connection.execute(
                    """
                    INSERT INTO nextwave_history (user_id, wave_id, station_id, lake_id, departure_at, is_first_of_day, is_last_of_day, peer_count, was_first_checkin, recorded_at)
                    SELECT $1::uuid, s.wave || '_' || to_char(d AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '_ZSG-' || (3 + n % 9),
                           s.station, s.lake, d, n % 11 = 0, n % 13 = 0, 1 + (n * 7 + $2) % 6, n % 5 = 0, d + interval '9 hours'
                    FROM generate_series(1, $3) n,
                         (VALUES \(stations.enumerated().map { "(\($0.offset), '\($0.element.0)', '\($0.element.1)', '\($0.element.2)')" }.joined(separator: ", "))) AS s (i, station, wave, lake),
                         LATERAL (SELECT (date_trunc('day', $4::timestamptz AT TIME ZONE 'Europe/Zurich') - make_interval(days => (n * 149) / $3 + 1)
                                          + make_interval(hours => 10 + (n * 5 + $2) % 10, mins => 30 * (n % 2))) AT TIME ZONE 'Europe/Zurich' AS d) t
                    -- Every fourth ride away from home.
                    WHERE s.i = (CASE WHEN n % 4 = 0 THEN n / 4 + $2 ELSE $2 END) % \(stations.count)
                    ON CONFLICT DO NOTHING
                    """, [rider.id, index, rider.rides, now])
                _ = try CommunityArchive.award(rider.id, rides: RideBounds(), on: connection)
            }
            // This evening's departures from Bürkliplatz, a few riders on each (those with a name show in the popover).
            try connection.execute(
                """
                INSERT INTO nextwave_checkins (wave_id, user_id, display_name, departure_at, station_id, lake_id)
                SELECT '8503651_' || to_char(dep AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '_ZSG-' || (3 + w), r.id, p.display_name, dep,
                       'Zürich Bürkliplatz (See)_8503651', 'Zürichsee'
                FROM generate_series(1, 4) w,
                     LATERAL (SELECT date_trunc('hour', $2::timestamptz) + make_interval(hours => w) AS dep) t,
                     unnest($1::uuid[]) WITH ORDINALITY AS r (id, k)
                     LEFT JOIN nextwave_profiles p ON p.user_id = r.id
                WHERE (k + w) % 3 <> 0
                """, [ids, now])
        }
    }
}
