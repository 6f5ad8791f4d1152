import APNsFormat
import Feature
import Limits
import OnDemand
import Push
import Realtime
import Settings

/// Next Wave's community: its settings, each default written here once. Off unless `PIER_NEXTWAVE=on`; on, it needs
/// the JWT secret the apps' public key is signed with.
public struct NextWaveSettings: Sendable {
    /// `PIER_NEXTWAVE`: serve the community (`/auth/v1`, `/rest/v1`).
    public var on = false
    /// `PIER_NEXTWAVE_JWT_SECRET` / `_FILE`: the Supabase project's JWT secret. The public key the apps ship is an HS256
    /// token with `role` `anon` signed with it; keeping the project's secret keeps that key and every session valid.
    public var jwtSecret: String?
    /// `PIER_NEXTWAVE_ACCESS_TOKEN_S`: an access token's lifetime.
    public var auth = AuthStore.Settings()
    /// `PIER_NEXTWAVE_SIGNUPS_REQUESTS_PER_MINUTE`, `…_BURST`, `…_CLIENT_SHARE`, `PIER_NEXTWAVE_SIGNUPS_PER_DAY`: anonymous
    /// sign-ups — every install signs up once (and again after a reinstall), so a client's share is small (12 a minute, 4 at once),
    /// a network's day generous (a carrier's NAT puts many subscribers behind one /24).
    public var signups = RegistrationLimits.Settings(budget: BudgetSettings(ratePerMinute: 600, burst: 200, clientShare: 0.02), perNetworkPerDay: 300)
    /// `PIER_NEXTWAVE_WRITES_REQUESTS_PER_MINUTE`, `…_BURST`, `…_CLIENT_SHARE`: check-ins, names, device tokens, verified
    /// sessions and session refreshes, counted per user and per address (by default 120 a minute and 40 at once for
    /// each: the app's launch writes a handful). A write costs one per row it sends or deletes: a 100-row upsert is
    /// let through on one and leaves the rest as a debt, so one rider's rows reach subscribers at most at the rate.
    public var writes = BudgetSettings(ratePerMinute: 12_000, burst: 4000, clientShare: 0.01)
    /// `PIER_NEXTWAVE_READS_REQUESTS_PER_MINUTE`, `…_BURST`, `…_CLIENT_SHARE`: reads of the tables and calls of the
    /// functions that reach PostgreSQL (answers held in memory spend nothing), per user and per address (by default
    /// 300 a minute and 60 at once for each: opening "My Badges" calls four functions, a board's refresh one).
    public var reads = BudgetSettings(ratePerMinute: 60_000, burst: 12_000, clientShare: 0.005)
    /// `PIER_NEXTWAVE_CHECKINS_PER_USER`: check-ins one user may hold until the nightly archive (the app shows one day's
    /// departures; a departed check-in counts until it is archived, so stamping check-ins "just departed" gains nothing).
    public var checkinsPerUser = 100
    /// `PIER_NEXTWAVE_RIDES_PER_DAY`, `PIER_NEXTWAVE_VERIFIED_PER_DAY`, `PIER_NEXTWAVE_VERIFIED_MAX`: what the statistics,
    /// badges and leaderboard count (``RideBounds``).
    public var rides = RideBounds()
    /// `PIER_NEXTWAVE_CHECKIN_HORIZON_D`: how far ahead a departure may be checked in for (the design says a week).
    public var checkinHorizonDays = 8
    /// `PIER_NEXTWAVE_IDLE_USER_D`: an anonymous user who left nothing (no check-in, ride, badge, device, name or
    /// verified session) and has not refreshed a session for this many days is deleted by the nightly job.
    public var idleUserDays = 30
    /// `PIER_NEXTWAVE_APNS_TOPIC`, `…_KEY_FILE`, `…_KEY_ID`, `…_TEAM_ID`: the app's APNs topic and key where they differ
    /// from `PIER_APNS_*` (Next Wave is another developer's app than the warnings app).
    public var app = PushApp(name: NextWaveFeature.app)
    /// `PIER_NEXTWAVE_APNS_ENVIRONMENT`: where the app's device tokens belong (`device_tokens` carries none); the App
    /// Store's and TestFlight's builds are `production`.
    public var apnsEnvironment = APNsEnvironment.production
    /// `PIER_NEXTWAVE_ARCHIVE_AT`: the nightly archive's time in Europe/Zurich (`HH:MM`; Supabase ran it at 03:00).
    public var archiveHour = 3
    public var archiveMinute = 0
    /// `PIER_REALTIME_CHANNELS_PER_SOCKET`, `PIER_REALTIME_MESSAGES_PER_S`, `PIER_REALTIME_COALESCE_MS`: live check-ins
    /// (`/realtime/v1/websocket`, on with the community): channels one socket may join, the messages it may send a
    /// second (a burst of five times that), and the window in which changes to one wave are coalesced.
    public var realtime = RealtimeSettings()

    public init() {}

    public init(_ reader: SettingsReader) throws {
        on = try reader.flag("PIER_NEXTWAVE", default: on)
        jwtSecret = try reader.secret("PIER_NEXTWAVE_JWT_SECRET")
        if on {
            guard let secret = jwtSecret, secret.utf8.count >= 32 else {
                throw SettingsProblem.invalid(
                    variable: "PIER_NEXTWAVE_JWT_SECRET", value: jwtSecret == nil ? "(unset)" : "(too short)",
                    expected: "the Supabase project's JWT secret, at least 32 characters (PIER_NEXTWAVE=on needs it)")
            }
        }
        auth.accessLifetime = Int64(try reader.int("PIER_NEXTWAVE_ACCESS_TOKEN_S", default: Int(auth.accessLifetime), in: 60...86_400))
        signups = try RegistrationLimits.Settings(reader, budget: "PIER_NEXTWAVE_SIGNUPS", perDay: "PIER_NEXTWAVE_SIGNUPS_PER_DAY", defaults: signups)
        writes = try reader.budget("PIER_NEXTWAVE_WRITES", default: writes)
        reads = try reader.budget("PIER_NEXTWAVE_READS", default: reads)
        checkinsPerUser = try reader.int("PIER_NEXTWAVE_CHECKINS_PER_USER", default: checkinsPerUser, in: 1...10_000)
        rides.ridesPerDay = try reader.int("PIER_NEXTWAVE_RIDES_PER_DAY", default: rides.ridesPerDay, in: 1...1_000)
        rides.verifiedPerDay = try reader.int("PIER_NEXTWAVE_VERIFIED_PER_DAY", default: rides.verifiedPerDay, in: 1...1_000)
        rides.verifiedInAll = try reader.int("PIER_NEXTWAVE_VERIFIED_MAX", default: rides.verifiedInAll, in: 1...1_000_000)
        checkinHorizonDays = try reader.int("PIER_NEXTWAVE_CHECKIN_HORIZON_D", default: checkinHorizonDays, in: 1...366)
        app = try PushApp(name: NextWaveFeature.app, reader, prefix: "PIER_NEXTWAVE_APNS")
        idleUserDays = try reader.int("PIER_NEXTWAVE_IDLE_USER_D", default: idleUserDays, in: 1...3650)
        realtime.channelsPerSocket = try reader.int("PIER_REALTIME_CHANNELS_PER_SOCKET", default: realtime.channelsPerSocket, in: 1...100)
        realtime.messagesPerSecond = Double(try reader.int("PIER_REALTIME_MESSAGES_PER_S", default: Int(realtime.messagesPerSecond), in: 1...1000))
        realtime.messageBurst = realtime.messagesPerSecond * 5
        realtime.coalescingWindow = .milliseconds(try reader.int(
            "PIER_REALTIME_COALESCE_MS", default: Int(realtime.coalescingWindow.components.seconds * 1000), in: 0...60_000))
        if let text = reader.string("PIER_NEXTWAVE_APNS_ENVIRONMENT") {
            guard let environment = APNsEnvironment(rawValue: text.lowercased()) else {
                throw SettingsProblem.invalid(variable: "PIER_NEXTWAVE_APNS_ENVIRONMENT", value: text, expected: "production or development")
            }
            apnsEnvironment = environment
        }
        if let text = reader.string("PIER_NEXTWAVE_ARCHIVE_AT") {
            let parts = text.split(separator: ":")
            guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute) else {
                throw SettingsProblem.invalid(variable: "PIER_NEXTWAVE_ARCHIVE_AT", value: text, expected: "HH:MM, Europe/Zurich time")
            }
            (archiveHour, archiveMinute) = (hour, minute)
        }
    }
}
