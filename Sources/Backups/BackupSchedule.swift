import Settings

/// The backup service's schedule, as the deployment sets it: the `backup` service (deploy/db/backup-schedule) runs
/// by it and reads the same two variables from the same `.env`. Pier reads them only to say when a backup is
/// overdue (`pier_backup_due_every_seconds`, which the alerts compare the last backups' ages with), so an operator who
/// changes the schedule changes the alerts with it.
public struct BackupSchedule: Sendable, Equatable {
    /// `PIER_BACKUP_FULL_EVERY_D`: a full backup is due when the last is this many days old.
    public var fullEveryDays = 7
    /// `PIER_BACKUP_DIFF_EVERY_H`: a differential is due when the last backup of either kind is this many hours old.
    public var differentialEveryHours = 24

    public init() {}

    public init(_ reader: SettingsReader) throws {
        let defaults = Self()
        fullEveryDays = try reader.int("PIER_BACKUP_FULL_EVERY_D", default: defaults.fullEveryDays, in: 1...365, meaning: "days between full backups (the `backup` service; pier reads it for the alerts, 1–365)")
        differentialEveryHours = try reader.int("PIER_BACKUP_DIFF_EVERY_H", default: defaults.differentialEveryHours, in: 1...24 * 365, meaning: "hours between backups: a differential when no backup of either kind is this recent (pier reads it too)")
    }
}
