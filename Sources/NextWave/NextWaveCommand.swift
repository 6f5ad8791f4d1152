import ArgumentParser
import Feature
import FeatureCommands
import Foundation
import Push
import Settings

/// `pier nextwave …`: the community's jobs, run now, and what an operator does to a rider.
struct NextWaveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nextwave", abstract: "Next Wave's community: its jobs, run now; a rider's name or account removed.",
        subcommands: [ArchiveCommand.self, NamesCommand.self, ClearNameCommand.self, DeleteUserCommand.self])
}

/// `pier nextwave archive`: the nightly job at once — departed check-ins into the history, new badges stored and
/// pushed, idle users who left nothing deleted. Safe beside running replicas (it takes the job's lock; what is archived once is never archived again).
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Archive departed check-ins into the ride history and award (and push) new badges now.",
        discussion: "Environment: DATABASE_URL (required; or DATABASE_URL_FILE); badges are pushed when the PIER_APNS_* settings are set.")

    func run() throws {
        let reader = SettingsReader(environment: ProcessInfo.processInfo.environment)
        let pushing = try PushSettings(reader).isConfigured
        let settings = try NextWaveSettings(reader)
        try Commands.current.withDatabase(announcing: nil) { pool in
            let summary = try await CommunityArchive(pool: pool, pushing: pushing, rides: settings.rides).run()
            let pruned = try await CommunityUsers.prune(idleDays: settings.idleUserDays, in: pool)
            print("archived \(summary.archived) rides of \(summary.riders) riders; deleted \(summary.deleted) departed check-ins; \(summary.badges) new badges, \(summary.pushes) pushes enqueued; deleted \(pruned) idle users")
        }
    }
}
