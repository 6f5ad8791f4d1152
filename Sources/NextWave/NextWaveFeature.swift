import ArgumentParser
import Feature
import Foundation
import HTTPServer
import Logging
import Push
import Realtime
import Scheduling

/// Next Wave's community — the app's second backend, once a self-hosted Supabase — served by Pier: anonymous sign-up
/// and sessions (`/auth/v1`), the check-ins, names, device tokens, verified sessions and lake levels the apps read and
/// write through PostgREST's wire (`/rest/v1`), the five functions they call, and the nightly archive that turns
/// departed check-ins into ridden waves and pushes new badges through the push engine. Off unless `PIER_NEXTWAVE=on`
/// (its routes are not there, `/health` says `disabled`).
public struct NextWaveFeature: Feature {
    public static let archiveSource = "nextwave.archive"
    public var name: String { "nextwave" }
    /// The app its devices belong to: its tokens are its own (a token of the warnings app's never moves here, nor back).
    public static let app = "nextwave"

    private let service: CommunityService?
    /// Live check-ins (`/realtime/v1/websocket`): every replica hears the check-ins' trigger through the change feed
    /// and fans the changes out to its own subscribers, whichever replica wrote them or leads the fetcher.
    private let realtime: RealtimeServer?
    /// The check-ins' notices (read at load: their declaration names the topic and the columns).
    private let checkins: CheckinChanges?
    private let job: FetchJob?
    private let engine: PushEngine?

    public init(settings: NextWaveSettings, context: FeatureContext, push: PushEngine?) throws {
        engine = push
        if settings.on { try push?.enable(settings.app) }
        guard settings.on, let secret = settings.jwtSecret else {
            service = nil
            realtime = nil
            checkins = nil
            job = nil
            return
        }
        let service = CommunityService(settings: settings, secret: secret, context: context)
        self.service = service
        let realtime = RealtimeServer(
            access: CommunityRealtimeAccess(community: service, spenders: context.spenders), settings: settings.realtime, metrics: context.metrics)
        self.realtime = realtime
        checkins = CheckinChanges(pool: context.pool, notices: context.notices, realtime: realtime, community: service)
        let schedule = FetchSchedule.daily(hour: settings.archiveHour, minute: settings.archiveMinute, timeZone: Self.zurich)
        let archive = CommunityArchive(pool: context.pool, pushing: push != nil, rides: settings.rides)
        let logger = Logger(label: "pier.nextwave")
        let idleDays = settings.idleUserDays
        job = FetchJob(source: Self.archiveSource, schedule: schedule, retry: context.retry, timeout: context.runTimeout) {
            let summary = try await archive.run()
            let pruned = try await CommunityUsers.prune(idleDays: idleDays, in: service.pool)
            try await service.countUsers()
            logger.info("check-ins archived", metadata: [
                "archived": "\(summary.archived)", "deleted": "\(summary.deleted)", "riders": "\(summary.riders)", "badges": "\(summary.badges)",
                "pushes": "\(summary.pushes)", "idle_users_deleted": "\(pruned)",
            ])
            if summary.pushes > 0 { push?.wake() }
            if summary.deleted > 0 { service.changed(.checkins) }
            if summary.archived > 0 { service.changed(.history(nil)) }
            return FetchSummary(itemCount: summary.archived, scrapedAt: Date())
        }
        context.board.register(Self.archiveSource, staleAfter: schedule.staleAfter)
    }

    /// Supabase's cron ran at 03:00 of its server's clock; the rides' local times are Swiss.
    static let zurich = TimeZone(identifier: "Europe/Zurich") ?? .gmt

    public var jobs: [FetchJob] { job.map { [$0] } ?? [] }

    /// The users counted for `/health` (kept by sign-ups, deletions and the nightly job); another replica's
    /// check-ins and rides change the answers held here, and the check-ins' notices start (before the change feed does).
    public func load() async throws {
        guard let service else { return }
        try await checkins?.start()
        try await service.countUsers()
    }

    public func reload(_ topic: ChangeTopic) async throws {
        if let change = CommunityChange(announced: topic) { service?.changed(change) }
    }

    /// Only while on: an operator who did not turn the community on serves none of it (`404`).
    public func register(in router: inout Router) {
        guard let service else { return }
        AuthRoutes(community: service).register(in: &router)
        RestRoutes(community: service).register(in: &router)
        realtime?.register(in: &router)
    }

    public var healthMembers: [String: @Sendable () -> any Encodable & Sendable] {
        guard let service else { return ["nextwave": { Self.health(on: nil) }] }
        let pushes = engine != nil
        return ["nextwave": { Self.health(on: On(badgePushes: pushes, users: max(0, service.users.load(ordering: .relaxed)))) }]
    }

    public var requestHeaders: [String] { ["apikey", "Prefer", "X-Client-Info", "X-Supabase-Api-Version", "Accept-Profile", "Content-Profile"] }

    /// The demo shows the community, signed with a secret everybody knows (never an operator's).
    public static var demoSettings: [String: String] { ["PIER_NEXTWAVE": "on", "PIER_NEXTWAVE_JWT_SECRET": DemoCommunity.secret] }

    /// A few riders, a season of rides, their badges and this evening's check-ins (only while the community is on).
    public func seedDemo(from directory: String) async throws {
        guard let service else { return }
        try await DemoCommunity.seed(pool: service.pool)
        service.counts.invalidate()
        try await service.countUsers()
    }

    public static var commands: [any ParsableCommand.Type] { [NextWaveCommand.self] }
    public static var imports: [any ParsableCommand.Type] { [ImportSupabaseCommand.self] }
}
