import Basics
import Foundation
import Postgres
import Push

/// The nightly job (`wave_checkins_archive_and_cleanup` and `process_new_badges`): check-ins whose departure passed
/// become ridden waves in the history (each with the wave's riders and whether it was the first check-in), every
/// departed check-in is deleted, and the riders archived get the badges they now earn — each stored once, and pushed
/// to their devices through the push engine (deep link `badges`) only when newly stored, so never twice. One
/// transaction under a lock: run twice, by two replicas or by `pier nextwave archive` beside the leader, it archives
/// once.
struct CommunityArchive: Sendable {
    struct Summary: Sendable, Equatable {
        /// Rides added to the history.
        var archived = 0
        /// Departed check-ins deleted (those without station or lake are deleted without being archived).
        var deleted = 0
        /// Riders whose history grew.
        var riders = 0
        /// Badges newly earned, and the pushes enqueued for them.
        var badges = 0
        var pushes = 0
    }

    let pool: PostgresPool
    /// Badges are stored either way; pushed only while the engine is on.
    let pushing: Bool
    /// What the badges count.
    var rides = RideBounds()

    /// Rides archived at once from which the history's statistics are refreshed in the same transaction.
    static let analyzeAbove = 5_000

    /// A push waits this long for an offline phone.
    static let pushLifetime: Int64 = 86_400

    func run(now: Date = Date()) async throws -> Summary {
        let (pushing, rides) = (pushing, rides)
        return try await pool.transaction { connection in
            try connection.execute("SELECT pg_advisory_xact_lock(hashtext('pier nextwave archive'))")
            let rows = try connection.query(
                """
                WITH archived AS (
                    INSERT INTO nextwave_history (user_id, wave_id, station_id, lake_id, departure_at, is_first_of_day, is_last_of_day, peer_count, was_first_checkin)
                    SELECT user_id, wave_id, station_id, lake_id, departure_at, is_first_of_day, is_last_of_day,
                           count(*) OVER wave, created_at = min(created_at) OVER wave
                    FROM nextwave_checkins
                    WHERE departure_at < to_timestamp($1) AND station_id IS NOT NULL AND lake_id IS NOT NULL
                    WINDOW wave AS (PARTITION BY wave_id)
                    ON CONFLICT (user_id, wave_id) DO NOTHING
                    RETURNING user_id),
                deleted AS (DELETE FROM nextwave_checkins WHERE departure_at < to_timestamp($1) RETURNING 1)
                SELECT (SELECT count(*) FROM archived)::int AS archived, (SELECT count(*) FROM deleted)::int AS deleted,
                       coalesce((SELECT array_agg(DISTINCT user_id::text) FROM archived), '{}')::text AS riders
                """, [now.timeIntervalSince1970])
            var summary = Summary()
            summary.archived = try rows[0].decode(Int.self, "archived")
            summary.deleted = try rows[0].decode(Int.self, "deleted")
            let riders = try rows[0].words("riders")
            if summary.archived >= Self.analyzeAbove {
                // Fresh statistics before each rider's are read: planned with the history's old ones (analyzed while
                // nearly empty), every rider's statistics could read the whole history. In this transaction: ANALYZE
                // counts its own transaction's rows.
                try connection.execute("ANALYZE nextwave_history")
            }
            summary.riders = riders.count
            var pushes: [(user: String, key: String, payload: String)] = []
            for rider in riders {
                let new = try Self.award(rider, rides: rides, on: connection)
                summary.badges += new.count
                if !new.isEmpty { pushes.append((rider, "nextwave-badges:" + new.map(\.id).sorted().joined(separator: ","), Self.payload(new))) }
            }
            if pushing && !pushes.isEmpty {
                let payloads = Array(Set(pushes.map(\.payload)))
                let number = Dictionary(uniqueKeysWithValues: payloads.enumerated().map { ($0.element, String($0.offset + 1)) })
                summary.pushes = try PushOutbox.enqueue(
                    payloads: payloads,
                    selecting: """
                        SELECT n.device_id, m.key, m.payload, NULL::text, to_timestamp($4), 10
                        FROM unnest($1::uuid[], $2::text[], $3::int[]) AS m (user_id, key, payload) JOIN nextwave_devices n ON n.user_id = m.user_id
                        """,
                    [
                        PostgresArray.literal(pushes.map(\.user)), PostgresArray.literal(pushes.map(\.key)),
                        PostgresArray.literal(pushes.map { number[$0.payload] ?? "" }), Double(Int64(now.timeIntervalSince1970) + Self.pushLifetime),
                    ],
                    on: connection)
            }
            if summary.archived > 0 { try CommunityChange.history(nil).announce(on: connection) }
            return summary
        }
    }

    /// Stores the badges `user` earns now and has not been told of; returns those, by title (as the message lists them).
    static func award(_ user: String, rides: RideBounds, on connection: PostgresConnection) throws -> [Badge] {
        let stats = try WaveStats(connection.query(CommunityFunctions.statsSQL(rides), [user])[0])
        let earned = Badge.earned(stats)
        guard !earned.isEmpty else { return [] }
        let stored = try connection.query(
            "INSERT INTO nextwave_badges (user_id, badge_id) SELECT $1::uuid, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING badge_id",
            [user, PostgresArray.literal(earned.map(\.id))])
        let new = Set(try stored.map { try $0.decode(String.self, "badge_id") })
        return earned.filter { new.contains($0.id) }.sorted { $0.title < $1.title }
    }

    /// The push for `badges` (at least one), worded as the app's backend worded it.
    static func payload(_ badges: [Badge]) -> String {
        let (title, body) = badges.count == 1
            ? ("New badge unlocked! 🏅", "You earned the “\(badges[0].title)” badge — tap to see it.")
            : ("New badges unlocked! 🏅", "You earned \(badges.count) new badges: \(badges.prefix(3).map(\.title).joined(separator: ", "))")
        return JSONWriter.text { json in
            json.object { json in
                json.member("aps", object: { json in
                    json.member("alert", object: { json in
                        json.member("title", title)
                        json.member("body", body)
                    })
                    json.member("sound", "default")
                })
                json.member("deepLink", "badges")
            }
        }
    }
}
