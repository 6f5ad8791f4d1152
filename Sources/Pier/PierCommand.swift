import ArgumentParser

/// The `pier` executable: wiring only; every capability lives in a module.
@main
struct PierCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "pier",
        abstract: "Lake, ferry and weather data for mobile apps.",
        discussion: "Configuration comes from environment variables (see README.md); options override them.",
        version: version,
        subcommands: [ServeCommand.self, MigrateCommand.self, FetchCommand.self, HealthCheckCommand.self, RoutesCommand.self, DatabaseBenchCommand.self, ParseBenchCommand.self],
        defaultSubcommand: nil
    )
}
