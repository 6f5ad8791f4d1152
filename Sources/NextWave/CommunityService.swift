import AnswerCaching
import Basics
import Feature
import Foundation
import HTTPServer
import Identity
import Limits
import Metrics
import OnDemand
import Postgres
import SupabaseAuth
import Synchronization

/// Everything the community's routes share while it is on: who a request is, the stores, the counts held in memory and
/// what sign-ups and writes may cost.
final class CommunityService: Sendable {

    let pool: PostgresPool
    let auth: AuthStore
    let store: CommunityStore
    let counts: CheckinCounts
    let leaderboard: Leaderboard
    let figures: RiderFigures
    let rides: RideBounds
    let signups: RegistrationLimits
    let writes: ShareLimits
    let reads: ShareLimits
    /// Users, for `/health`: read at start-up and by the nightly job, moved by sign-ups and deletions between.
    let users = Atomic<Int>(0)
    let jwt: SupabaseJWT
    /// Public keys verified before and when each expires: the apps all send the same one, so most requests pay no HMAC
    /// for it (a handful at most: a key rotation's old and new), under the answers' rule (bounded, started over).
    private let keys = Mutex(TokenTable<Int64>(entries: 8, bytes: 8 * (SupabaseJWT.maximumBytes + 64)))
    /// Users' access tokens verified before (``VerifiedTokens``).
    private let verified = VerifiedTokens()

    init(settings: NextWaveSettings, secret: String, context: FeatureContext) {
        pool = context.pool
        jwt = SupabaseJWT(secret: secret)
        auth = AuthStore(pool: context.pool, secret: secret, settings: settings.auth)
        let counts = CheckinCounts(pool: context.pool)
        self.counts = counts
        rides = settings.rides
        let leaderboard = Leaderboard(pool: context.pool, rides: settings.rides)
        let figures = RiderFigures(pool: context.pool)
        (self.leaderboard, self.figures) = (leaderboard, figures)
        store = CommunityStore(
            pool: context.pool,
            limits: .init(
                checkinsPerUser: settings.checkinsPerUser, checkinHorizonDays: settings.checkinHorizonDays, apnsEnvironment: settings.apnsEnvironment,
                rides: settings.rides),
            metrics: context.metrics,
            changed: { Self.forget(change: $0, counts: counts, leaderboard: leaderboard, figures: figures) })
        signups = RegistrationLimits(Self.signupKind, settings: settings.signups, spenders: context.spenders, metrics: context.metrics)
        writes = ShareLimits(.writes, settings.writes, spenders: context.spenders, metrics: context.metrics)
        reads = ShareLimits(.reads, settings.reads, spenders: context.spenders, metrics: context.metrics)
    }

    /// The SQL of one of the caller's own figures (``CommunityFunctions/riderOwn``), counting what ``rides`` believe.
    func riderSQL(_ function: String) -> String {
        switch function {
        case CommunityFunctions.stats: CommunityFunctions.statsSQL(rides)
        case CommunityFunctions.stations: CommunityFunctions.stationsSQL(rides)
        default: CommunityFunctions.verifiedSQL(rides)
        }
    }

    /// Reads how many users there are (start-up, the nightly job, the demo's seeding); sign-ups and deletions move the
    /// count between.
    func countUsers() async throws {
        users.store(try await CommunityUsers.count(in: pool), ordering: .relaxed)
    }

    /// Memory forgets what `change` makes stale.
    func changed(_ change: CommunityChange) {
        Self.forget(change: change, counts: counts, leaderboard: leaderboard, figures: figures)
    }

    private static func forget(change: CommunityChange, counts: CheckinCounts, leaderboard: Leaderboard, figures: RiderFigures) {
        switch change {
        case .checkins: counts.invalidate()
        case .history(let users):
            leaderboard.changed()
            figures.changed(users)
        case .names: leaderboard.changed()
        case .deleted(let user):
            counts.invalidate()
            leaderboard.forget()
            figures.changed(user.map { [$0] })
        }
    }

    static let signupKind = RegistrationLimits.Kind(
        what: "sign-ups", scope: "nextwave-signups", perDaySetting: "PIER_NEXTWAVE_SIGNUPS_PER_DAY",
        metric: "pier_nextwave_signups_refused_total", help: "Next Wave's anonymous sign-ups refused before anything was stored, by reason.")

    /// Who shows `credentials` (``CommunityCaller``), the public key's verification remembered.
    func caller(of credentials: CommunityCaller.Credentials, now: Date = Date()) throws(CommunityCaller.Problem) -> CommunityCaller {
        guard let key = credentials.apiKey, !key.isEmpty, key.utf8.count <= SupabaseJWT.maximumBytes else { throw .noKey }
        let seconds = Int64(now.timeIntervalSince1970)
        let known = keys.withLock { $0.value(for: Substring(key)) }.map { $0 > seconds } ?? false
        if !known {
            guard let claims = try? jwt.verify(Substring(key), now: now), claims.role == "anon" else { throw .badKey }
            keys.withLock { $0.set(claims.expires ?? Int64.max, for: Substring(key), cost: 64) }
        }
        return try CommunityCaller.of(credentials, key: key, jwt: jwt, verified: verified, now: now)
    }

    /// Who `request` is (``caller(of:now:)``): read from its headers' bytes as they lie when memory knows its key and its
    /// token (nearly every call: the apps send the same key and a session's token for its hour), else from its
    /// ``CommunityCaller/Credentials`` — which verifies, remembers and words every refusal.
    func caller(of request: HTTPRequest, now: Date = Date()) throws(CommunityCaller.Problem) -> CommunityCaller {
        if let known = knownCaller(of: request.headers, now: Int64(now.timeIntervalSince1970)) { return known }
        return try caller(of: CommunityCaller.Credentials(request), now: now)
    }

    /// The caller both headers name when both were verified before and have not expired; `nil` for anything else.
    private func knownCaller(of headers: HTTPHeaders, now: Int64) -> CommunityCaller? {
        let known = headers.withFirstValue("apikey") { key -> CommunityCaller? in
            guard let expires = keys.withLock({ $0.value(for: key) }), expires > now else { return nil }
            // No `Authorization`: the key alone. Not `Bearer`, or a token not verified before: the credentials' way decides.
            return headers.withFirstValue("authorization") { field -> CommunityCaller? in
                guard let token = BearerToken.token(in: field) else { return nil }
                if ByteScan.equal(token, key) { return .anonymous }
                return verified.caller(of: token, now: now)
            } ?? .anonymous
        }
        return known ?? nil
    }
}
