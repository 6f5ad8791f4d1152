import Metrics
import Postgres
import Synchronization

/// What `/health` and the metrics say of the deployment's backups, read from PostgreSQL in the background (every
/// ``interval``, never per request): the last successful full and differential backups the `backup` service recorded
/// (`backup_runs`, deploy/db/backup-schedule) and PostgreSQL's own WAL archiver (`pg_stat_archiver`). States and ages
/// only — never a path, a repository or a secret.
public final class BackupMonitor: Sendable {
    /// The last reading, as seconds since 1970 (`nil`: never).
    struct Reading: Sendable, Equatable {
        var full: Double?
        var differential: Double?
        var archived: Double?
        var failed: Double?
        /// `archive_mode` is on.
        var archiving = false
        var now: Double = 0
    }

    /// `/health`'s `backups` member (an age never recorded is `null`: `/health`'s encoder writes absent optionals).
    public struct Report: Encodable, Sendable, Equatable {
        /// `off` (no WAL archiving: a development cluster), `ok`, or `failing` (the archiver's last attempt failed
        /// after its last success).
        public var walArchiving: String
        public var walArchivedAgeSeconds: Int?
        public var fullAgeSeconds: Int?
        public var differentialAgeSeconds: Int?

        enum CodingKeys: String, CodingKey {
            case walArchiving = "wal_archiving"
            case walArchivedAgeSeconds = "wal_archived_age_s"
            case fullAgeSeconds = "full_age_s"
            case differentialAgeSeconds = "differential_age_s"
        }
    }

    /// How often the state is read again.
    public static let interval: Duration = .seconds(30)

    private let pool: PostgresPool
    private let schedule: BackupSchedule
    private let reading = Mutex(Reading())

    public init(pool: PostgresPool, schedule: BackupSchedule) {
        self.pool = pool
        self.schedule = schedule
    }

    public var report: Report {
        let reading = reading.withLock { $0 }
        let age = { (moment: Double?) in moment.map { max(0, Int(reading.now - $0)) } }
        let failing = reading.failed.map { failed in reading.archived.map { failed > $0 } ?? true } ?? false
        return Report(
            walArchiving: !reading.archiving ? "off" : failing ? "failing" : "ok", walArchivedAgeSeconds: age(reading.archived),
            fullAgeSeconds: age(reading.full), differentialAgeSeconds: age(reading.differential))
    }

    /// A failed read keeps the last one (the database monitor says when PostgreSQL is unreachable).
    func check() async {
        guard let row = try? await pool.query(
            """
            SELECT (SELECT extract(epoch FROM max(finished_at))::float8 FROM backup_runs WHERE ok AND kind = 'full') AS full,
                   (SELECT extract(epoch FROM max(finished_at))::float8 FROM backup_runs WHERE ok AND kind IN ('diff', 'incr')) AS differential,
                   extract(epoch FROM a.last_archived_time)::float8 AS archived, extract(epoch FROM a.last_failed_time)::float8 AS failed,
                   current_setting('archive_mode') <> 'off' AS archiving, extract(epoch FROM now())::float8 AS now
            FROM pg_stat_archiver a
            """).first,
            let now = try? row.decode(Double.self, "now")
        else { return }
        let fresh = Reading(
            full: try? row.decode(Double?.self, "full"), differential: try? row.decode(Double?.self, "differential"),
            archived: try? row.decode(Double?.self, "archived"), failed: try? row.decode(Double?.self, "failed"),
            archiving: (try? row.decode(Bool.self, "archiving")) ?? false, now: now)
        reading.withLock { $0 = fresh }
    }

    /// The gauges the alerts read (0: never).
    public func register(in registry: MetricsRegistry) {
        let help = "When the last successful backup of each type ended (seconds since 1970; 0: none recorded)."
        registry.gauge("pier_backup_last_success_timestamp_seconds", help: help, labels: [("type", "full")]) { [self] in
            reading.withLock { $0.full ?? 0 }
        }
        registry.gauge("pier_backup_last_success_timestamp_seconds", help: help, labels: [("type", "differential")]) { [self] in
            reading.withLock { $0.differential ?? 0 }
        }
        // The schedule, so that the alerts say a backup is overdue by the deployment's own schedule.
        let due = "How often a backup of each type is due (the backup service's schedule: PIER_BACKUP_FULL_EVERY_D, PIER_BACKUP_DIFF_EVERY_H)."
        let (full, differential) = (Double(schedule.fullEveryDays * 86_400), Double(schedule.differentialEveryHours * 3600))
        registry.gauge("pier_backup_due_every_seconds", help: due, labels: [("type", "full")]) { full }
        registry.gauge("pier_backup_due_every_seconds", help: due, labels: [("type", "differential")]) { differential }
        registry.gauge("pier_wal_archiving", help: "1 when PostgreSQL archives WAL (archive_mode on).") { [self] in
            reading.withLock { $0.archiving ? 1 : 0 }
        }
        registry.gauge("pier_wal_last_archived_timestamp_seconds", help: "When PostgreSQL last archived a WAL segment (0: never).") { [self] in
            reading.withLock { $0.archived ?? 0 }
        }
        registry.gauge("pier_wal_last_failed_timestamp_seconds", help: "When archiving a WAL segment last failed (0: never).") { [self] in
            reading.withLock { $0.failed ?? 0 }
        }
    }
}
