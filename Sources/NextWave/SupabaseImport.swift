import APNsFormat
import Foundation
import Postgres
import Push

/// A Supabase project's data export (``SupabaseExportFile/all``) carried into the community's tables, all or nothing:
/// the files are copied into typed temporary tables, every row is checked, and only when none is refused is anything
/// written — in the same transaction. Ids are kept (a user stays who they were: with the project's JWT secret, the
/// access tokens and the public key issued before the move stay valid), refresh tokens are stored as their SHA-256 like
/// Pier's own, badges count as notified (never pushed again), names are made what Pier stores (trimmed, no control
/// characters, at most 40 characters — an early app version had no cap).
struct SupabaseImport: Sendable {
    /// What was imported.
    struct Summary: Sendable, Equatable {
        var users = 0, sessions = 0, refreshTokens = 0, checkins = 0, rides = 0, profiles = 0, badges = 0, devices = 0, verified = 0
        /// Names changed on the way in (trimmed, control characters dropped, cut to 40 characters).
        var namesChanged = 0
        /// Device tokens held by several users in Supabase, kept under the newest (Pier keeps one device under one user).
        var devicesMerged = 0
    }

    /// Rows refused, each `file line N: reason` (at most ``maxListed`` per rule), and how many in all.
    struct Refusal: Error, Sendable, Equatable {
        var lines: [String]
        var count: Int
    }

    static let maxListed = 20

    /// The export's directory.
    let directory: String
    let pool: PostgresPool
    /// Where the device tokens belong (`PIER_NEXTWAVE_APNS_ENVIRONMENT`; the export carries none).
    let apnsEnvironment: APNsEnvironment
    /// Devices one user keeps (the newest).
    var devicesPerUser = CommunityStore.Limits.devicesPerUser

    /// The problems of the files in `directory` found without a database (missing, wrong header); empty: they can be
    /// imported.
    static func fileProblems(in directory: String) -> [String] {
        SupabaseExportFile.all.compactMap { $0.problem(at: path($0, in: directory)) }
    }

    func run() async throws -> Summary {
        let files = SupabaseExportFile.all.map { ($0, Self.path($0, in: directory)) }
        let (environment, cap) = (apnsEnvironment, devicesPerUser)
        let summary = try await pool.transaction { connection in
            for (file, path) in files {
                try connection.execute(file.createStaging)
                guard let handle = FileHandle(forReadingAtPath: path) else { throw Refusal(lines: ["\(file.name) is missing"], count: 1) }
                defer { try? handle.close() }
                do {
                    try connection.copyIn(file.copy) {
                        guard let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty else { return nil }
                        return Array(chunk)
                    }
                } catch PostgresError.server(_, let message, let detail) {
                    // A value that does not parse as its column's type: the file is the operator's own, its line is enough.
                    throw Refusal(lines: ["\(file.name)\(detail.map { " \($0)" } ?? ""): \(message)"], count: 1)
                }
                try connection.execute("ANALYZE \(file.staging)")
            }
            var refused: [String] = [], count = 0
            for rule in Self.rules {
                let rows = try connection.query(
                    "SELECT line, count(*) OVER () AS n FROM \(rule.file.staging) r WHERE \(rule.refused) ORDER BY line LIMIT \(Self.maxListed)")
                guard let first = rows.first else { continue }
                count += try first.decode(Int.self, "n")
                for row in rows { refused.append("\(rule.file.name) line \(try row.decode(Int.self, "line")): \(rule.reason)") }
            }
            guard count == 0 else { throw Refusal(lines: refused, count: count) }
            return try Self.transfer(on: connection, environment: environment, devicesPerUser: cap)
        }
        // Fresh statistics for the planner: the leaderboard and the archive read these tables rider by rider.
        _ = try await pool.execute(
            "ANALYZE nextwave_users, nextwave_sessions, nextwave_refresh_tokens, nextwave_checkins, nextwave_history, nextwave_profiles, nextwave_badges, nextwave_devices, nextwave_verified_sessions")
        return summary
    }

    private static func path(_ file: SupabaseExportFile, in directory: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent(file.name).path
    }

    /// A kind of row refused: `refused` is an SQL condition on the staging table's row `r`.
    struct Rule: Sendable {
        var file: SupabaseExportFile
        var refused: String
        var reason: String
    }

    private static func text(_ column: String, max: Int) -> String {
        "(r.\(column) IS NOT NULL AND length(r.\(column)) NOT BETWEEN 1 AND \(max))"
    }

    private static func required(_ columns: String...) -> String {
        "(" + columns.map { "r.\($0) IS NULL" }.joined(separator: " OR ") + ")"
    }

    private static func unknownUser(_ file: SupabaseExportFile) -> Rule {
        Rule(file: file, refused: "NOT EXISTS (SELECT 1 FROM import_users u WHERE u.id = r.user_id)", reason: "user_id is not in users.csv")
    }

    private static func repeated(_ file: SupabaseExportFile, _ key: String) -> Rule {
        Rule(
            file: file,
            refused: "r.line IN (SELECT line FROM (SELECT line, row_number() OVER (PARTITION BY \(key) ORDER BY line) AS n FROM \(file.staging)) e WHERE e.n > 1)",
            reason: "the same \(key) as an earlier line")
    }

    /// Every refusal, file by file (what the tables' own constraints would refuse, found before anything is written,
    /// with the line).
    static let rules: [Rule] = {
        let (u, s, t, c, h, p, b, d, v) = (
            SupabaseExportFile.users, SupabaseExportFile.sessions, SupabaseExportFile.refreshTokens, SupabaseExportFile.checkins,
            SupabaseExportFile.history, SupabaseExportFile.profiles, SupabaseExportFile.badges, SupabaseExportFile.devices, SupabaseExportFile.verified
        )
        return [
            Rule(file: u, refused: required("id"), reason: "id is empty"),
            repeated(u, "id"),
            Rule(file: u, refused: "EXISTS (SELECT 1 FROM nextwave_users n WHERE n.id = r.id)", reason: "this user is in Pier already (was the export imported before?)"),
            Rule(file: s, refused: required("id", "user_id"), reason: "id or user_id is empty"),
            repeated(s, "id"),
            unknownUser(s),
            Rule(file: t, refused: "(r.token IS NULL OR length(r.token) NOT BETWEEN 1 AND 1000 OR r.session_id IS NULL)", reason: "token is empty or longer than 1,000 characters, or session_id is empty"),
            repeated(t, "token"),
            Rule(file: t, refused: "NOT EXISTS (SELECT 1 FROM import_sessions x WHERE x.id = r.session_id)", reason: "session_id is not in sessions.csv"),
            Rule(file: c, refused: required("wave_id", "user_id", "departure_at"), reason: "wave_id, user_id or departure_at is empty"),
            Rule(file: c, refused: "(\(text("wave_id", max: 200)) OR \(text("station_id", max: 200)) OR \(text("lake_id", max: 100)))", reason: "wave_id or station_id is longer than 200 characters, lake_id than 100, or one is an empty text"),
            repeated(c, "wave_id,user_id"),
            unknownUser(c),
            Rule(file: h, refused: required("user_id", "wave_id", "station_id", "lake_id", "departure_at"), reason: "user_id, wave_id, station_id, lake_id or departure_at is empty"),
            Rule(file: h, refused: "(\(text("wave_id", max: 200)) OR \(text("station_id", max: 200)) OR \(text("lake_id", max: 100)) OR r.peer_count < 1)", reason: "wave_id or station_id is longer than 200 characters, lake_id than 100, or peer_count is below 1"),
            repeated(h, "user_id,wave_id"),
            unknownUser(h),
            Rule(file: p, refused: required("user_id"), reason: "user_id is empty"),
            repeated(p, "user_id"),
            unknownUser(p),
            Rule(file: b, refused: "(r.user_id IS NULL OR r.badge_id IS NULL OR length(r.badge_id) NOT BETWEEN 1 AND 100)", reason: "user_id is empty, or badge_id is empty or longer than 100 characters"),
            repeated(b, "user_id,badge_id"),
            unknownUser(b),
            Rule(file: d, refused: "(r.user_id IS NULL OR r.token IS NULL OR r.token !~ '^([0-9A-Fa-f]{2}){8,100}$')", reason: "user_id is empty, or token is not an APNs device token in hex (16 to 200 hex digits)"),
            Rule(file: d, refused: text("platform", max: 20), reason: "platform is longer than 20 characters"),
            repeated(d, "user_id,token"),
            unknownUser(d),
            Rule(file: v, refused: "(r.user_id IS NULL OR r.session_key IS NULL OR \(text("session_key", max: 128)) OR \(text("source", max: 40)))", reason: "user_id or session_key is empty, session_key is longer than 128 characters or source than 40"),
            Rule(file: v, refused: "(r.total_distance < 0 OR r.duration < 0 OR r.moving_time < 0 OR r.max_speed < 0 OR r.longest_ride < 0)", reason: "a figure is negative"),
            Rule(file: v, refused: "(\(text("station_id", max: 200)) OR \(text("lake_id", max: 100)))", reason: "station_id is longer than 200 characters or lake_id than 100, or one is an empty text"),
            repeated(v, "user_id,session_key"),
            unknownUser(v),
        ]
    }()

    /// A name as Pier stores it (``DisplayName``'s rules, in SQL): control and invisible formatting characters dropped
    /// (the zero-width joiner of emoji kept), trimmed, at most 40 characters; empty is anonymous.
    static func storedName(_ column: String) -> String {
        let dropped = #"regexp_replace(\#(column), '[[:cntrl:]\u00AD\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]', '', 'g')"#
        return #"nullif(left(regexp_replace(\#(dropped), '^[[:space:]]+|[[:space:]]+$', '', 'g'), \#(DisplayName.maximumLength)), '')"#
    }

    /// Writes the checked rows into the community's tables.
    private static func transfer(on connection: PostgresConnection, environment: APNsEnvironment, devicesPerUser: Int) throws -> Summary {
        var summary = Summary()
        summary.users = try connection.execute(
            """
            INSERT INTO nextwave_users (id, created_at, updated_at, last_sign_in_at)
            SELECT id, coalesce(created_at, now()), coalesce(updated_at, created_at, now()), coalesce(last_sign_in_at, created_at, now()) FROM import_users
            """)
        summary.sessions = try connection.execute(
            "INSERT INTO nextwave_sessions (id, user_id, created_at, refreshed_at) SELECT id, user_id, coalesce(created_at, now()), coalesce(refreshed_at, created_at, now()) FROM import_sessions")
        // The token as the app holds it, stored as Pier stores its own (BearerSecret.digest: SHA-256 of its UTF-8, hex).
        summary.refreshTokens = try connection.execute(
            "INSERT INTO nextwave_refresh_tokens (token_hash, session_id, created_at) SELECT encode(sha256(convert_to(token, 'UTF8')), 'hex'), session_id, coalesce(created_at, now()) FROM import_refresh_tokens")
        // Names made what Pier stores once, in the staging tables; the rows changed are the names changed.
        summary.namesChanged = try ["import_checkins", "import_profiles"].reduce(0) { changed, staging in
            let name = storedName("display_name")
            return changed + (try connection.execute("UPDATE \(staging) SET display_name = \(name) WHERE display_name IS DISTINCT FROM \(name)"))
        }
        summary.checkins = try connection.execute(
            """
            INSERT INTO nextwave_checkins (wave_id, user_id, id, display_name, departure_at, created_at, station_id, lake_id, is_first_of_day, is_last_of_day)
            SELECT wave_id, user_id, coalesce(id, gen_random_uuid()), display_name, departure_at, coalesce(created_at, now()), station_id, lake_id,
                   coalesce(is_first_of_day, false), coalesce(is_last_of_day, false)
            FROM import_checkins
            """)
        summary.rides = try connection.execute(
            """
            INSERT INTO nextwave_history (user_id, wave_id, station_id, lake_id, departure_at, is_first_of_day, is_last_of_day, peer_count, was_first_checkin, recorded_at)
            SELECT user_id, wave_id, station_id, lake_id, departure_at, coalesce(is_first_of_day, false), coalesce(is_last_of_day, false), coalesce(peer_count, 1),
                   coalesce(was_first_checkin, false), coalesce(recorded_at, now())
            FROM import_history
            """)
        summary.profiles = try connection.execute(
            "INSERT INTO nextwave_profiles (user_id, display_name, updated_at) SELECT user_id, display_name, coalesce(updated_at, now()) FROM import_profiles")
        summary.badges = try connection.execute(
            "INSERT INTO nextwave_badges (user_id, badge_id, earned_at) SELECT user_id, badge_id, coalesce(earned_at, now()) FROM import_badges")
        summary.verified = try connection.execute(
            """
            INSERT INTO nextwave_verified_sessions (user_id, session_key, source, start_at, end_at, total_distance, duration, moving_time, max_speed, longest_ride, recorded_at, station_id, lake_id)
            SELECT user_id, session_key, coalesce(source, 'foilmotion'), start_at, end_at, total_distance, duration, moving_time, max_speed, longest_ride,
                   coalesce(recorded_at, now()), station_id, lake_id
            FROM import_verified
            """)
        // One device (token) under one user: the user who registered it last (Supabase's updated_at is the first
        // registration: the app's upsert never moves it). Registered as every registration is, so a token Pier knew
        // moves here; seen now — the app registers at every launch, Supabase kept no later sign of it.
        let tokens = try connection.query("SELECT DISTINCT lower(token) AS token FROM import_devices").map { try $0.decode(String.self, "token") }
        let ids = try PushDevices.register(tokens: tokens, app: NextWaveFeature.app, environment: environment, on: connection)
        summary.devices = try connection.execute(
            """
            WITH registered AS (SELECT * FROM unnest($1::text[], $2::uuid[]) AS r (token, id)),
            newest AS (
                SELECT DISTINCT ON (lower(token)) user_id, lower(token) AS token, coalesce(platform, 'ios') AS platform, coalesce(updated_at, now()) AS updated_at
                FROM import_devices ORDER BY lower(token), updated_at DESC NULLS LAST, line DESC)
            INSERT INTO nextwave_devices (device_id, user_id, platform, updated_at)
            SELECT r.id, n.user_id, n.platform, n.updated_at FROM newest n JOIN registered r USING (token)
            """, [PostgresArray.literal(Array(ids.keys)), PostgresArray.literal(Array(ids.values))])
        summary.devicesMerged = try connection.query("SELECT count(*)::int AS n FROM import_devices")[0].decode(Int.self, "n") - tokens.count
        // The cap Pier keeps for every user (an old phone's token goes when the eleventh comes).
        try CommunityStore.capDevices(of: "user_id IN (SELECT id FROM import_users)", [], keeping: devicesPerUser, on: connection)
        try CommunityChange.history(nil).announce(on: connection)
        return summary
    }
}
