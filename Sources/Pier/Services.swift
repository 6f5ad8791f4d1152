import ArgumentParser
import Feature
import Foundation
import HTTPServer
import Identity
import Logging
import Metrics
import Postgres
import Replay
import Scheduling
import Settings
import UpstreamHTTP

/// The features wired onto the shared infrastructure: the status board, the fetch runner and its log, and the
/// list of ``Features``. Shared by `serve` (routes, background scheduler, change feed), `fetch` (one run) and
/// `routes`.
struct Services {
    let features: [any Feature]
    /// The demo's recordings (`serve --demo`), for the features' seeding; `nil` otherwise.
    let demoDirectory: String?
    let board: SourceStatusBoard
    let runner: FetchRunner
    let log: FetchRunLog
    /// The database's notices of changed rows, which the features subscribed to (the change feed delivers them).
    let notices = ChangeNotices()
    /// `PIER_*` variables that neither the configuration nor any feature read (reported at start).
    let unknownVariables: [String]
    /// What the features' code says of each setting it read (`pier settings`).
    let settingDeclarations: [SettingDeclaration]
    private let settings: Configuration.FetchSettings

    /// - Parameters:
    ///   - capture: which runs keep their upstream answers; by default failed and suspect ones when
    ///     `PIER_SAVE_SUSPECT_DIR` is set.
    ///   - replay: recordings standing in for the upstreams (`--demo`, `--replay`): each feature says how its
    ///     upstreams' recordings answer.
    init(
        configuration: Configuration, pool: PostgresPool, metrics: MetricsRegistry?, capture: FetchRunner.CapturePolicy? = nil,
        replay: ReplayUpstream? = nil
    ) throws {
        let settings = configuration.fetch
        self.settings = settings
        demoDirectory = configuration.servingDemo ? configuration.demoDirectory : nil
        board = SourceStatusBoard()
        log = FetchRunLog(pool: pool)
        let policy = capture ?? settings.saveSuspectDirectory.map {
            FetchRunner.CapturePolicy.failedRuns(URL(fileURLWithPath: $0), keep: settings.saveSuspectKeep)
        } ?? .none
        runner = FetchRunner(log: log, board: board, metrics: metrics, capture: policy)
        let context = FeatureContext(
            pool: pool,
            upstream: UpstreamClient(configuration: .init(
                timeout: settings.upstreamTimeout, maximumBodyBytes: settings.upstreamMaxBytes, route: configuration.upstreamRoute ?? { $0 })),
            board: board, runner: runner, metrics: metrics,
            retry: RetryPolicy(initial: settings.retryInitial, maximum: settings.retryMaximum), runTimeout: settings.runTimeout,
            cacheMaxAge: settings.cacheMaxAge, upstreamsAreRecordings: configuration.upstreamRoute != nil,
            product: "Pier/\(PierCommand.version)", spenders: Spenders(proxies: TrustedProxies(configuration.trustedProxies), kinds: Features.types.flatMap { $0.clientKinds }),
            notices: notices)
        // The demo turns on what needs no upstream (the features' demo settings), unless the environment says otherwise.
        let demoSettings = configuration.servingDemo ? Features.demoSettings : [:]
        let reader = SettingsReader(environment: demoSettings.merging(configuration.environment) { $1 })
        do {
            features = try Features.make(reader, context: context)
        } catch {
            throw ValidationError("\(error)")
        }
        // The types list brings each feature's commands and parsers: a feature made but not listed there would lose them.
        let listed = Set(Features.types.map(ObjectIdentifier.init))
        if let missing = features.first(where: { !listed.contains(ObjectIdentifier(type(of: $0))) }) {
            throw ValidationError("Features.types does not list \(type(of: missing)) (its commands and parsers)")
        }
        replay?.use(features.flatMap(\.replay))
        // Who a request counts as when it would spend: the address, then what the features contribute, in their order.
        context.spenders.install(features.compactMap(\.spenderResolver))
        runner.publishMetrics()
        unknownVariables = configuration.unknownVariables(readElsewhere: reader.names)
        settingDeclarations = reader.declarations
    }

    var jobs: [FetchJob] { features.flatMap(\.jobs) }

    /// The job of `source`, if a feature fetches it on a schedule.
    func job(_ source: String) -> FetchJob? {
        jobs.first { $0.source == source }
    }

    /// Fills every feature's memory from PostgreSQL, so a restart serves at once without asking upstreams; in the
    /// demo, each feature first seeds what its recordings cannot give.
    func load() async throws {
        if let demoDirectory {
            for feature in features {
                do { try await feature.seedDemo(from: demoDirectory) } catch { throw LoadFailure(feature: feature.name, underlying: error) }
            }
        }
        for feature in features {
            do { try await feature.load() } catch { throw LoadFailure(feature: feature.name, underlying: error) }
        }
    }

    /// A feature's stored data could not be loaded at start.
    struct LoadFailure: Error, CustomStringConvertible {
        let feature: String
        let underlying: any Error
        var description: String { "\(feature): \(underlying)" }
    }

    /// Reloads what `topic` names from PostgreSQL (another process stored new data), or everything when `nil`.
    func reload(_ topic: ChangeTopic?) async {
        do {
            for feature in features {
                if let topic { try await feature.reload(topic) } else { try await feature.load() }
            }
        } catch {
            Logger(label: "pier.changes").warning("could not reload new data", metadata: ["source": "\(topic?.name ?? "all")", "error": "\(error)"])
        }
        for feature in features {
            if let topic { await feature.changed(topic) } else { for job in features.flatMap(\.jobs) { await feature.changed(job.topic) } }
        }
    }

    /// This process stored new data for `topic`.
    func stored(_ topic: ChangeTopic) async {
        for feature in features { await feature.changed(topic) }
    }

    func register(in router: inout Router) {
        for feature in features { feature.register(in: &router) }
    }

    /// More members for `/health`'s sources: each fetched source's last saved capture, and what its feature adds.
    var healthDetails: [String: @Sendable () -> MergedObject] {
        let runner = runner, features = features
        let fetched = Set(jobs.map(\.source))
        var details: [String: @Sendable () -> MergedObject] = [:]
        for source in board.sources.map(\.name) {
            details[source] = {
                MergedObject([fetched.contains(source) ? LastCapture(lastCapture: runner.lastCapture(for: source)) : nil]
                    + features.map { $0.healthDetails(for: source) })
            }
        }
        return details
    }

    /// A fetched source's newest saved capture (`last_capture`: its folder, `null` when none).
    struct LastCapture: Encodable, Sendable {
        let lastCapture: String?

        enum CodingKeys: String, CodingKey {
            case lastCapture = "last_capture"
        }
    }

    /// More top-level members of `/health`: what the features add.
    var healthMembers: [String: @Sendable () -> any Encodable & Sendable] {
        features.reduce(into: [:]) { members, feature in members.merge(feature.healthMembers) { first, _ in first } }
    }

    func scheduler(isLeader: @escaping @Sendable () -> Bool = { true }) -> FetchScheduler {
        FetchScheduler(
            runner: runner, log: log, jobs: jobs,
            configuration: .init(jitter: settings.jitter, tick: settings.tick), isLeader: isLeader)
    }
}
