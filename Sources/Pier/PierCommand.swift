import ArgumentParser

/// The `pier` executable: wiring only; every capability lives in a module.
@main
struct PierCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "pier",
        abstract: "Lake, ferry and weather data for mobile apps.",
        discussion: "Configuration comes from environment variables (every one is listed in docs/operations.md); options override them. Secrets (DATABASE_URL, PIER_REFRESH_TOKEN) may also be read from a file named by <NAME>_FILE.",
        version: version,
        subcommands: [ServeCommand.self, MigrateCommand.self, FetchCommand.self, ImportCommand.self, HealthCheckCommand.self, RoutesCommand.self, DatabaseBenchCommand.self, ParseBenchCommand.self, AppAttestCommand.self],
        defaultSubcommand: nil
    )
}
