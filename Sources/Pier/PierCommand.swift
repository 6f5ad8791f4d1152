import ArgumentParser
import Feature
import FeatureCommands

/// The `pier` executable: wiring only; every capability lives in a module.
@main
struct PierCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "pier",
        abstract: "Lake, ferry and weather data for mobile apps.",
        discussion: "Configuration comes from environment variables (`pier settings` lists every one, docs/settings.md too); options override them. Secrets (DATABASE_URL, PIER_REFRESH_TOKEN) may also be read from a file named by <NAME>_FILE.",
        version: version,
        // The generic commands, `import` with the features' importers, then each feature's own (`app-attest`, `nextwave`).
        subcommands: [ServeCommand.self, MigrateCommand.self, FetchCommand.self, HealthCheckCommand.self, RoutesCommand.self, SettingsCommand.self, DatabaseBenchCommand.self, ParseBenchCommand.self, ImportCommand.self]
            + Features.commands,
        defaultSubcommand: nil
    )

    /// The features' commands find the database through the executable.
    static func main() {
        Commands.use(ExecutableCommandEnvironment())
        main(nil)
    }
}
