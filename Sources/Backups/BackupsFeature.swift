import Feature
import HTTPServer
import Settings

/// The deployment's backups as `/health` (`backups`) and the metrics show them: an operational monitor, started from
/// the feature list like any feature — read once before serving (the first `/health` is already right), then every
/// ``BackupMonitor/interval`` while `pier serve` runs. The `backup` service records its runs through this module's
/// function (`backup_run_recorded`, deploy/db/backup-schedule); this module owns `backup_runs` and reads it. Its
/// settings are the backup service's schedule (``BackupSchedule``).
public struct BackupsFeature: Feature {
    public var name: String { "backups" }
    private let monitor: BackupMonitor

    public init(schedule: BackupSchedule, context: FeatureContext) {
        monitor = BackupMonitor(pool: context.pool, schedule: schedule)
        if let metrics = context.metrics { monitor.register(in: metrics) }
    }

    public func load() async throws {
        await monitor.check()
    }

    public func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: BackupMonitor.interval)
            if Task.isCancelled { break }
            await monitor.check()
        }
    }

    /// No routes: what it knows is in `/health` and `/metrics`.
    public func register(in router: inout Router) {}

    public var healthMembers: [String: @Sendable () -> any Encodable & Sendable] {
        ["backups": { [monitor] in monitor.report }]
    }
}
