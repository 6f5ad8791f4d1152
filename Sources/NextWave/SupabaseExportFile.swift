import Foundation

/// One CSV file of a Supabase project's data export as `deploy/nextwave/supabase-export.sql` writes it (PostgreSQL's
/// CSV, a header row naming exactly these columns), and the typed table it is copied into first: PostgreSQL parses every
/// value, and a row that does not parse is refused with its line.
struct SupabaseExportFile: Sendable {
    /// The file's name in the export's directory.
    var name: String
    /// The temporary table it is copied into (`line` numbers its rows as the file does: the header is line 1).
    var staging: String
    /// Its columns in the file's order, with their PostgreSQL types.
    var columns: [(name: String, type: String)]

    /// The header row the file must start with.
    var header: String { columns.map(\.name).joined(separator: ",") }

    /// `CREATE TEMP TABLE` for the staging table, gone at the transaction's end.
    var createStaging: String {
        let list = columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ")
        return "CREATE TEMP TABLE \(staging) (line bigint GENERATED ALWAYS AS IDENTITY (START WITH 2), \(list)) ON COMMIT DROP"
    }

    /// `COPY … FROM STDIN` into the staging table.
    var copy: String {
        "COPY \(staging) (\(columns.map(\.name).joined(separator: ", "))) FROM STDIN WITH (FORMAT csv, HEADER)"
    }

    /// Why the file at `path` cannot be read as this one (missing, or its first line is not the header); nil: it can.
    func problem(at path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "\(name) is missing (the export writes it, even when empty)" }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 4096)) ?? Data()
        var line = start.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        let found = String(decoding: line, as: UTF8.self)
        guard found == header else { return "\(name): the first line must be the header \(header) (found \(found.isEmpty ? "nothing" : String(found.prefix(200))))" }
        return nil
    }

    static let users = SupabaseExportFile(
        name: "users.csv", staging: "import_users",
        columns: [("id", "uuid"), ("created_at", "timestamptz"), ("updated_at", "timestamptz"), ("last_sign_in_at", "timestamptz")])
    static let sessions = SupabaseExportFile(
        name: "sessions.csv", staging: "import_sessions",
        columns: [("id", "uuid"), ("user_id", "uuid"), ("created_at", "timestamptz"), ("refreshed_at", "timestamptz")])
    static let refreshTokens = SupabaseExportFile(
        name: "refresh_tokens.csv", staging: "import_refresh_tokens", columns: [("token", "text"), ("session_id", "uuid"), ("created_at", "timestamptz")])
    static let checkins = SupabaseExportFile(
        name: "wave_checkins.csv", staging: "import_checkins",
        columns: [
            ("id", "uuid"), ("wave_id", "text"), ("user_id", "uuid"), ("display_name", "text"), ("departure_at", "timestamptz"),
            ("created_at", "timestamptz"), ("station_id", "text"), ("lake_id", "text"), ("is_first_of_day", "boolean"), ("is_last_of_day", "boolean"),
        ])
    static let history = SupabaseExportFile(
        name: "wave_history.csv", staging: "import_history",
        columns: [
            ("user_id", "uuid"), ("wave_id", "text"), ("station_id", "text"), ("lake_id", "text"), ("departure_at", "timestamptz"),
            ("is_first_of_day", "boolean"), ("is_last_of_day", "boolean"), ("peer_count", "integer"), ("was_first_checkin", "boolean"),
            ("recorded_at", "timestamptz"),
        ])
    static let profiles = SupabaseExportFile(
        name: "user_profiles.csv", staging: "import_profiles", columns: [("user_id", "uuid"), ("display_name", "text"), ("updated_at", "timestamptz")])
    static let badges = SupabaseExportFile(
        name: "user_badges.csv", staging: "import_badges", columns: [("user_id", "uuid"), ("badge_id", "text"), ("earned_at", "timestamptz")])
    static let devices = SupabaseExportFile(
        name: "device_tokens.csv", staging: "import_devices",
        columns: [("user_id", "uuid"), ("token", "text"), ("platform", "text"), ("updated_at", "timestamptz")])
    static let verified = SupabaseExportFile(
        name: "verified_sessions.csv", staging: "import_verified",
        columns: [
            ("user_id", "uuid"), ("session_key", "text"), ("source", "text"), ("start_at", "timestamptz"), ("end_at", "timestamptz"),
            ("total_distance", "double precision"), ("duration", "integer"), ("moving_time", "integer"), ("max_speed", "double precision"),
            ("longest_ride", "double precision"), ("recorded_at", "timestamptz"), ("station_id", "text"), ("lake_id", "text"),
        ])

    /// The export, in the order its rows depend on each other.
    static let all = [users, sessions, refreshTokens, checkins, history, profiles, badges, devices, verified]
}
