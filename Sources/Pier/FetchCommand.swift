import ArgumentParser
import Feature
import FeatureCommands
import Foundation
import Logging
import Scheduling

/// `pier fetch ships|lakes|weather|alplakes --once`: one scheduled source fetched now, recorded in `fetch_runs` like a scheduled run.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch one source now and exit (non-zero when the fetch failed or looked wrong).",
        discussion: "Environment: DATABASE_URL (required; or DATABASE_URL_FILE) and the PIER_* upstream settings (`pier settings`, docs/settings.md).")

    @Argument(help: "The source to fetch: one that `pier serve` fetches on a schedule (ships, lakes, weather, alplakes).")
    var source: String

    @Flag(help: "Run one fetch and exit (the only mode; the background schedule belongs to `pier serve`).")
    var once = false

    @Option(help: "Write every upstream answer of the run (body as received, URL, status, headers, time) into this folder.")
    var save: String?

    @Option(help: "Use a capture folder as the upstreams, exactly as recorded (reproduces a failed run).")
    var replay: String?

    func run() throws {
        var configuration = try Configuration.load()
        Configuration.bootstrapLogging(configuration)
        let logger = Logger(label: "pier")
        let upstream = try UpstreamReplay.start(replay, moveToNow: false, into: &configuration, logger: logger)
        defer { upstream?.stop() }
        let pool = try Database.pool(configuration)
        let sources = try Services(
            configuration: configuration, pool: pool, metrics: nil, capture: save.map { .everyRun(URL(fileURLWithPath: $0)) }, replay: upstream)
        Configuration.warnAboutUnknownVariables(sources.unknownVariables)
        try Database.migrateAtStart(pool, configuration, logger: logger)
        defer { pool.close() }
        // Running `pier serve` processes reload what this run stores.
        let changes = ChangeFeed(url: configuration.databaseURL ?? "") { _ in }
        sources.runner.onSuccess { source in await changes.publish(source, on: pool) }
        guard let job = sources.job(source) else {
            throw ValidationError("unknown source \(source): one of \(sources.jobs.map(\.source).joined(separator: ", "))")
        }
        let result = try runBlocking { await sources.runner.run(job) }
        switch result {
        case let .success(summary):
            print("\(source): stored \(summary.itemCount) items")
        case let .failure(error):
            print("\(source): \(error.outcome.rawValue): \(error)")
            if let save { print("upstream answers saved in \(save)") }
            throw ExitCode.failure
        }
    }
}
