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
        on = try reader.flag("PIER_NEXTWAVE", default: on, meaning: "`on` serves the community")
        jwtSecret = try reader.secret("PIER_NEXTWAVE_JWT_SECRET", meaning: "required when on, at least 32 characters: the Supabase project's JWT secret. The public key the apps ship is an HS256 token with `role` `anon` signed with it, so keeping the project's secret keeps that key (and every access token issued before the move) valid; every replica has the same")
        if on {
            guard let secret = jwtSecret, secret.utf8.count >= 32 else {
                throw SettingsProblem.invalid(
                    variable: "PIER_NEXTWAVE_JWT_SECRET", value: jwtSecret == nil ? "(unset)" : "(too short)",
                    expected: "the Supabase project's JWT secret, at least 32 characters (PIER_NEXTWAVE=on needs it)")
            }
        }
        auth.accessLifetime = Int64(try reader.int("PIER_NEXTWAVE_ACCESS_TOKEN_S", default: Int(auth.accessLifetime), in: 60...86_400, meaning: "an access token's lifetime (Supabase's default); refresh tokens rotate on every refresh (a repeat within 10 s gets the same new token, a later replay ends the session)"))
        signups = try RegistrationLimits.Settings(
            reader, budget: "PIER_NEXTWAVE_SIGNUPS", rate: "anonymous sign-ups: everybody's budget and one client's share (its App Attest device, else its address and network) — 12 a minute and 4 at once by default; past it `429`. Under App Attest's `require` a sign-up without a device's token is `401` (the app's Supabase client sends `X-Pier-App-Token` as a global header)", of: "sign-ups",
            perDay: ("PIER_NEXTWAVE_SIGNUPS_PER_DAY", "sign-ups a network (an IPv4 /24, an IPv6 /48) may make per UTC day without a device's proof — every install signs up once; counted in PostgreSQL across replicas"), defaults: signups)
        writes = try reader.budget("PIER_NEXTWAVE_WRITES", default: writes, rate: "check-ins, check-outs, names, device tokens, verified sessions and session refreshes, counted per user and per address: 120 a minute and 40 at once for each by default; past it `429`. The lake-level writes the app sends (~15 a device a day, dropped) spend none", of: "writes")
        reads = try reader.budget("PIER_NEXTWAVE_READS", default: reads, rate: "reads of the tables and calls of the functions, counted per user and per address (the public key's counts by address): 300 a minute and 60 at once for each by default; past it `429` with `Retry-After` in PostgREST's shape. What memory answers (the counts between check-ins, the leaderboard, a rider's figures held) spends nothing: the share guards PostgreSQL", of: "reads")
        checkinsPerUser = try reader.int("PIER_NEXTWAVE_CHECKINS_PER_USER", default: checkinsPerUser, in: 1...10_000, meaning: "check-ins one rider may hold until the nightly archive — a departed one counts until it is archived, so stamping check-ins \"just departed\" gains nothing")
        rides.ridesPerDay = try reader.int("PIER_NEXTWAVE_RIDES_PER_DAY", default: rides.ridesPerDay, in: 1...1_000, meaning: "rides the statistics, badges and leaderboard count per rider and Swiss day: the busiest pier (Bürkliplatz) sees 30 departures on a high-summer Saturday, so nobody rides more. Rides past it stay in the history, uncounted")
        rides.verifiedPerDay = try reader.int("PIER_NEXTWAVE_VERIFIED_PER_DAY", default: rides.verifiedPerDay, in: 1...1_000, meaning: "verified sessions a rider may hold per day of their start and in all; a write past either is refused (`400 P0001`) and nothing of it is stored; sessions stored past them before (an import) are kept and not counted")
        rides.verifiedInAll = try reader.int("PIER_NEXTWAVE_VERIFIED_MAX", default: rides.verifiedInAll, in: 1...1_000_000, meaning: "verified sessions a rider may hold per day of their start and in all; a write past either is refused (`400 P0001`) and nothing of it is stored; sessions stored past them before (an import) are kept and not counted")
        checkinHorizonDays = try reader.int("PIER_NEXTWAVE_CHECKIN_HORIZON_D", default: checkinHorizonDays, in: 1...366, meaning: "how far ahead a departure may be checked in for; a departure more than ten minutes past is refused (checking in after the ship left would credit a ride)")
        app = try PushApp(name: NextWaveFeature.app, reader, prefix: "PIER_NEXTWAVE_APNS", app: "Next Wave (its badge pushes)")
        idleUserDays = try reader.int("PIER_NEXTWAVE_IDLE_USER_D", default: idleUserDays, in: 1...3650, meaning: "the nightly job deletes anonymous users who left nothing (no check-in, ride, badge, device, name or verified session) and have not signed in or refreshed a session for this many days, with their sessions")
        realtime.channelsPerSocket = try reader.int("PIER_REALTIME_CHANNELS_PER_SOCKET", default: realtime.channelsPerSocket, in: 1...100, meaning: "channels one socket may join (the apps join one; Supabase's default is 100 per client); past it a join is refused (`ChannelRateLimitReached`)")
        realtime.messagesPerSecond = Double(try reader.int("PIER_REALTIME_MESSAGES_PER_S", default: Int(realtime.messagesPerSecond), in: 1...1000, meaning: "messages a socket may send a second, sustained, with a burst of five seconds' worth; past it the socket is closed with `1008`. The apps send a heartbeat every 25–30 s"))
        realtime.messageBurst = realtime.messagesPerSecond * 5
        realtime.coalescingWindow = .milliseconds(try reader.int(
            "PIER_REALTIME_COALESCE_MS", default: Int(realtime.coalescingWindow.components.seconds * 1000), in: 0...60_000, meaning: "the coalescing window (`0`: every change is sent)"))
        if let text = reader.string("PIER_NEXTWAVE_APNS_ENVIRONMENT", shown: apnsEnvironment.rawValue, meaning: "where the app's device tokens belong (its `device_tokens` rows carry none): the App Store's and TestFlight's builds are `production` — Supabase's edge function defaulted to the sandbox") {
            guard let environment = APNsEnvironment(rawValue: text.lowercased()) else {
                throw SettingsProblem.invalid(variable: "PIER_NEXTWAVE_APNS_ENVIRONMENT", value: text, expected: "production or development")
            }
            apnsEnvironment = environment
        }
        if let text = reader.string("PIER_NEXTWAVE_ARCHIVE_AT", shown: String(format: "%02d:%02d", archiveHour, archiveMinute), meaning: "the nightly archive's time, Europe/Zurich") {
            let parts = text.split(separator: ":")
            guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute) else {
                throw SettingsProblem.invalid(variable: "PIER_NEXTWAVE_ARCHIVE_AT", value: text, expected: "HH:MM, Europe/Zurich time")
            }
            (archiveHour, archiveMinute) = (hour, minute)
        }
    }
}
