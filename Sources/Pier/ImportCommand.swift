import ArgumentParser

/// `pier import <what> …`: data collected elsewhere carried over — one group, each feature bringing its importers
/// (``Feature/imports``), so two features never both claim the word.
struct ImportCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "import", abstract: "Import data collected elsewhere into PostgreSQL.", subcommands: Features.imports)
    }
}
