import Lakes
import PostgRESTFormat
import Push

/// One of the five tables the apps reach through `/rest/v1/<name>`, as PostgREST shows it under the app's row-level
/// security, fixed where the app's backend was too open: the columns a client may name and the SQL each is read from,
/// which columns a write takes, and whose rows a caller sees (only their own: nobody reads another user's rows).
struct CommunityTable: Sendable {
    struct Column: Sendable {
        var name: String
        /// The SQL type a filter's value and a written value are cast to.
        var type: String
        /// How the column is read (the stored column, or an expression of it).
        var read: String
        /// A write may set it.
        var writable: Bool
        /// Compared without regard to case (the lake names, as the app matches MeteoNews').
        var folded: Bool

        init(_ name: String, _ type: String, read: String? = nil, writable: Bool = true, folded: Bool = false) {
            self.name = name
            self.type = type
            self.read = read ?? name
            self.writable = writable
            self.folded = folded
        }
    }

    /// What a write does.
    enum Writes: Sendable {
        /// Inserts the rows; an existing key is merged when asked and `merging` allows it, else left as it is.
        case rows(merging: Bool)
        /// Registers each token as the push engine's device under the caller.
        case devices
        /// Accepted and dropped: the rows are Pier's own.
        case ignored
    }

    /// The name the apps use (`wave_checkins`).
    var name: String
    /// What reads select from: Pier's table, or a query of Pier's own data.
    var source: String
    /// The column holding the user a row belongs to: a caller reads, changes and deletes only their rows. `nil`: the
    /// rows are public (the lake levels, which are Pier's own).
    var owner: String?
    var columns: [Column]
    /// The upsert's conflict target the apps name (`on_conflict`).
    var key: [String]
    var writes: Writes
    /// A caller may delete their rows (check-outs, device tokens); the app's other tables had no delete policy.
    var deletes = false
    /// What memory holds that its writes change (`nil`: nothing).
    enum Held: Sendable {
        /// The check-ins whose counts are held: a write checks the horizon and the rider's held check-ins.
        case checkins
        /// Rides the statistics and leaderboards count (verified sessions): a write checks the bounds on them.
        case rides
        /// The names the leaderboards show.
        case names
    }
    var held: Held?

    func column(_ name: String) -> Column? { columns.first { $0.name == name } }

    static let checkins = CommunityTable(
        name: "wave_checkins", source: "nextwave_checkins", owner: "user_id",
        columns: [
            Column("id", "uuid", writable: false), Column("wave_id", "text"), Column("user_id", "uuid"), Column("display_name", "text"),
            Column("departure_at", "timestamptz"), Column("created_at", "timestamptz", writable: false), Column("station_id", "text"),
            Column("lake_id", "text"), Column("is_first_of_day", "boolean"), Column("is_last_of_day", "boolean"),
        ],
        key: ["wave_id", "user_id"], writes: .rows(merging: true), deletes: true, held: .checkins)

    static let profiles = CommunityTable(
        name: "user_profiles", source: "nextwave_profiles", owner: "user_id",
        columns: [Column("user_id", "uuid"), Column("display_name", "text"), Column("updated_at", "timestamptz", writable: false)],
        key: ["user_id"], writes: .rows(merging: true), held: .names)

    /// A device token is the push engine's device (``PushDevices``) under one user.
    static let deviceTokens = CommunityTable(
        name: "device_tokens",
        source: """
            (SELECT n.device_id, n.user_id, d.token, n.platform, n.updated_at
             FROM nextwave_devices n JOIN \(PushDevices.tokens) d ON d.id = n.device_id) AS device_tokens
            """,
        owner: "user_id",
        columns: [Column("user_id", "uuid"), Column("token", "text"), Column("platform", "text"), Column("updated_at", "timestamptz", writable: false)],
        key: ["user_id", "token"], writes: .devices, deletes: true)

    static let verifiedSessions = CommunityTable(
        name: "verified_sessions", source: "nextwave_verified_sessions", owner: "user_id",
        columns: [
            Column("user_id", "uuid"), Column("session_key", "text"), Column("source", "text"), Column("start_at", "timestamptz"),
            Column("end_at", "timestamptz"), Column("total_distance", "float8"), Column("duration", "integer"), Column("moving_time", "integer"),
            Column("max_speed", "float8"), Column("longest_ride", "float8"), Column("recorded_at", "timestamptz", writable: false),
            Column("station_id", "text"), Column("lake_id", "text"),
        ],
        // Never changed once stored (the app's table had no update policy): a re-import, merged or not, is nothing.
        key: ["user_id", "session_key"], writes: .rows(merging: false), held: .rides)

    /// Pier's own level history (``LakeStore/levelHistory``, MeteoNews' names, matched without regard to case as the app
    /// does); the app's writes are accepted and change nothing. `level_m` as Supabase's `numeric(7,3)` wrote it.
    static let lakeLevels = CommunityTable(
        name: "lake_water_levels", source: "\(LakeStore.levelHistory) AS levels", owner: nil,
        columns: [
            Column("lake_name", "text", read: "lake", folded: true), Column("date", "date", read: "day"), Column("level_m", "numeric", read: "level_m::numeric(7,3)"),
            Column("recorded_at", "timestamptz", read: "coalesce(read_at, day::timestamptz)", writable: false),
        ],
        key: ["lake_name", "date"], writes: .ignored)

    static let all = [checkins, profiles, deviceTokens, verifiedSessions, lakeLevels]

    static func named(_ name: String) -> CommunityTable? { all.first { $0.name == name } }
}
