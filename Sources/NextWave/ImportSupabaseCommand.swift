import ArgumentParser
import Feature
import FeatureCommands
import Foundation
import Settings

/// `pier import nextwave-supabase DIR`: the Next Wave project's users, sessions, check-ins, ride history, names,
/// badges, device tokens and verified sessions, from the export `deploy/nextwave/supabase-export.sql` writes.
struct ImportSupabaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nextwave-supabase",
        abstract: "Import Next Wave's community from a data export of its Supabase project (all or nothing).",
        discussion: """
            DIR holds the nine CSV files deploy/nextwave/supabase-export.sql writes (docs/operations/community.md, "Moving from \
            Supabase"). Every row is checked first; refused rows are listed with their file and line, and then nothing \
            is imported. Keep PIER_NEXTWAVE_JWT_SECRET the project's JWT secret: the apps' public key and their sessions \
            stay valid. Environment: DATABASE_URL (required; or DATABASE_URL_FILE), PIER_NEXTWAVE_APNS_ENVIRONMENT.
            """)

    @Argument(help: "The export's directory.")
    var directory: String

    func run() throws {
        let settings = try NextWaveSettings(SettingsReader(environment: ProcessInfo.processInfo.environment))
        let directory = directory
        let files = SupabaseImport.fileProblems(in: directory)
        guard files.isEmpty else {
            for problem in files { Self.printError("\(directory): \(problem)") }
            Self.printError("\(directory): nothing imported")
            throw ExitCode.failure
        }
        do {
            // Running replicas drop the check-in counts they hold.
            try Commands.current.withDatabase(announcing: nil) { pool in
                let s = try await SupabaseImport(directory: directory, pool: pool, apnsEnvironment: settings.apnsEnvironment).run()
                print(
                    """
                    \(directory): imported \(s.users) users (\(s.sessions) sessions, \(s.refreshTokens) refresh tokens), \(s.checkins) check-ins, \
                    \(s.rides) ridden waves, \(s.profiles) leaderboard names, \(s.badges) badges (as notified), \(s.devices) device tokens, \
                    \(s.verified) verified sessions
                    """)
                if s.namesChanged > 0 { print("\(directory): \(s.namesChanged) names were made what Pier keeps (trimmed, control characters dropped, at most 40 characters)") }
                if s.devicesMerged > 0 { print("\(directory): \(s.devicesMerged) device tokens held by several users are kept under the newest (one device, one user)") }
            }
        } catch let refusal as SupabaseImport.Refusal {
            for line in refusal.lines { Self.printError("\(directory)/\(line)") }
            if refusal.count > refusal.lines.count { Self.printError("\(directory): … and \(refusal.count - refusal.lines.count) more") }
            Self.printError("\(directory): nothing imported (\(refusal.count) rows refused)")
            throw ExitCode.failure
        }
    }

    private static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
