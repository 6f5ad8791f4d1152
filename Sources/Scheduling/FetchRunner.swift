import Foundation
import Limits
import Logging
import Metrics
import Synchronization
import UpstreamHTTP

/// Runs a job once: records it in `fetch_runs`, bounds it by its timeout, updates the status board and the
/// metrics, and logs the outcome. A second caller for a source whose run is in flight waits for that run
/// instead of starting another (single-flight), whether it comes from the scheduler or the refresh route.
public final class FetchRunner: Sendable {
    public typealias Result = Swift.Result<FetchSummary, FetchError>

    private let log: FetchRunLog
    public let board: SourceStatusBoard
    private let metrics: MetricsRegistry?
    private let logger: Logger
    private let inFlight = SingleFlight<String, Result>()
    private let successHook = Mutex<(@Sendable (ChangeTopic) async -> Void)?>(nil)
    private let capture: CapturePolicy
    private let lastCaptures = Mutex<[String: String]>([:])

    /// Which runs keep their upstream answers on disk (``UpstreamCapture``).
    public enum CapturePolicy: Sendable {
        case none
        /// Every run, into this folder (`pier fetch … --save DIR`).
        case everyRun(URL)
        /// Failed and suspect runs, each into `<folder>/<source>-<UTC time>`, the newest `keep` kept
        /// (`PIER_SAVE_SUSPECT_DIR`).
        case failedRuns(URL, keep: Int)
    }

    /// The folder of `source`'s newest saved capture, if any (for `/health`).
    public func lastCapture(for source: String) -> String? {
        lastCaptures.withLock { $0[source] }
    }

    /// Called with the source's topic after every run that stored new data — every success, and a failure that
    /// stored part of its data (``FetchError/partial(_:stored:suspect:)``) — to tell other processes.
    public func onSuccess(_ hook: @escaping @Sendable (ChangeTopic) async -> Void) {
        successHook.withLock { $0 = hook }
    }

    public init(
        log: FetchRunLog, board: SourceStatusBoard, metrics: MetricsRegistry? = nil, capture: CapturePolicy = .none,
        logger: Logger = Logger(label: "pier.fetch")
    ) {
        self.log = log
        self.capture = capture
        self.board = board
        self.metrics = metrics
        self.logger = logger
        publishMetrics()
    }

    /// Registers the last-success gauge of every source on the board (again after sources were added; a
    /// gauge registered twice is the same gauge).
    static let runsMetric = "pier_fetch_runs_total"
    static let runsHelp = "Fetch runs by source and outcome."

    /// Beside it, what `/health` says of each source, by the same rule (``SourceStatusBoard/statuses(now:)``): its state
    /// (one series per state, `1` for the one it is in), its data's age and the age at which it turns stale — the
    /// operator's freshness panel and alert read these rather than recomputing the rule.
    public func publishMetrics() {
        guard let metrics else { return }
        for source in board.sources {
            let labels = [("source", source.name)]
            metrics.gauge(
                "pier_fetch_last_success_timestamp_seconds", help: "Unix time of the last successful fetch per source.", labels: labels
            ) { [board] in board.history(source.name).lastSuccess?.timeIntervalSince1970 ?? 0 }
            metrics.gauge(
                "pier_source_stale_after_seconds", help: "The age at which a source's data turns stale in /health.", labels: labels
            ) { source.staleAfter.seconds }
            metrics.gauge(
                "pier_source_age_seconds", help: "Age of each source's data (NaN before its first success).", labels: labels
            ) { [board] in board.status(of: source.name)?.ageSeconds.map(Double.init) ?? .nan }
            // Every outcome from zero, so that a rate or an increase over the first run is counted rather than missed.
            for outcome in FetchOutcome.allCases {
                _ = metrics.counter(Self.runsMetric, help: Self.runsHelp, labels: labels + [("outcome", outcome.rawValue)])
            }
            // `fetched`: an on-demand source's data ages whenever nobody asks (its /health `stale` then says only that),
            // so the operator's staleness alert reads the scheduled ones.
            let fetched = board.isOnDemand(source.name) ? "on_demand" : "scheduled"
            for state in SourceStatus.State.allCases {
                metrics.gauge(
                    "pier_source_state", help: "Each source's state in /health: 1 for the state it is in, 0 for the others.",
                    labels: labels + [("fetched", fetched), ("state", state.rawValue)]
                ) { [board] in board.status(of: source.name)?.state == state ? 1 : 0 }
            }
        }
    }

    /// Runs `job` now, or joins the run of the same source already in flight.
    public func run(_ job: FetchJob) async -> Result {
        await inFlight.value(for: job.source) { await self.execute(job) }
    }

    private func execute(_ job: FetchJob) async -> Result {
        let started = Date()
        let id: Int64?
        do {
            id = try await log.begin(source: job.source, at: started)
        } catch {
            // Without the database nothing could be stored anyway; the run is over before it began.
            let failure = FetchError(error)
            finish(job, id: nil, result: .failure(failure), started: started)
            return .failure(failure)
        }
        let result: Result
        if case .none = capture {
            result = await Self.withTimeout(job.timeout) { try await job.work() }
        } else {
            let answers = UpstreamCapture(startedAt: started)
            result = await UpstreamCapture.$current.withValue(answers) { await Self.withTimeout(job.timeout) { try await job.work() } }
            keep(answers, of: job.source, result: result)
        }
        do {
            if let id {
                try await log.finish(
                    id: id, outcome: result.outcome, itemCount: try? result.get().itemCount,
                    error: result.failure.map { "\($0)" }, at: Date())
            }
        } catch {
            logger.warning("could not record the fetch run", metadata: ["source": "\(job.source)", "error": "\(error)"])
        }
        finish(job, id: id, result: result, started: started)
        // New data, even from a run that failed part-way, is announced so that other processes load it.
        let storedSomething = if case .failure(let error) = result { error.storedSomething } else { true }
        if storedSomething, let hook = successHook.withLock({ $0 }) { await hook(job.topic) }
        return result
    }

    /// ``capturingFailures(of:_:)`` of `runner`, or just `work` without one (a service built without a runner).
    public static func capturingFailures<T: Sendable>(
        _ runner: FetchRunner?, of source: String, _ work: @escaping @Sendable () async -> (value: T, failure: String?)
    ) async -> T {
        guard let runner else { return await work().value }
        return await runner.capturingFailures(of: source, work)
    }

    /// Runs one on-demand upstream call (a request's, not a scheduled run) with its answers captured when the
    /// policy keeps failed runs: `work` returns its value and, when the answer was wrong or failed, why — that
    /// capture is then saved like a failed run's (`PIER_SAVE_SUSPECT_DIR`), so upstream garbage can become a fixture.
    public func capturingFailures<T: Sendable>(of source: String, _ work: @escaping @Sendable () async -> (value: T, failure: String?)) async -> T {
        guard case .failedRuns = capture else { return await work().value }
        let answers = UpstreamCapture(startedAt: Date())
        let (value, failure) = await UpstreamCapture.$current.withValue(answers) { await work() }
        if let failure { keep(answers, of: source, result: .failure(.other(failure))) }
        return value
    }

    /// Writes a run's upstream answers where the policy says; a capture that cannot be written is logged,
    /// never a reason to fail the run.
    private func keep(_ answers: UpstreamCapture, of source: String, result: Result) {
        let folder: URL
        switch capture {
        case .none:
            return
        case let .everyRun(directory):
            folder = directory
        case let .failedRuns(directory, keep):
            guard case .failure = result else { return }
            // UTC to the millisecond, without colons: unique per run, and sorts by time.
            let stamp = answers.startedAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
                .replacingOccurrences(of: ":", with: "")
            folder = directory.appendingPathComponent("\(source)-\(stamp)")
            Self.prune(directory, keep: max(0, keep - 1))
        }
        do {
            try answers.write(to: folder, source: source, outcome: result.outcome.rawValue, error: result.failure.map { "\($0)" })
            lastCaptures.withLock { $0[source] = folder.path }
            logger.info("upstream answers saved", metadata: ["source": "\(source)", "folder": "\(folder.path)"])
        } catch {
            logger.warning("could not save the upstream answers", metadata: ["source": "\(source)", "error": "\(error)"])
        }
    }

    /// Deletes all but the newest `keep` capture folders (their names sort by time within a source).
    static func prune(_ directory: URL, keep: Int) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory.path) else { return }
        let folders = names.filter { manager.fileExists(atPath: directory.appendingPathComponent($0).appendingPathComponent("run.json").path) }
        // `<source>-<time>`: the part after the first dash sorts by time across sources.
        let stamp = { (name: String) in name.drop { $0 != "-" } }
        let byAge = folders.sorted { (stamp($0), $0) < (stamp($1), $1) }
        for name in byAge.dropLast(keep) { try? manager.removeItem(at: directory.appendingPathComponent(name)) }
    }

    private func finish(_ job: FetchJob, id: Int64?, result: Result, started: Date) {
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        board.record(job.source, outcome: result.outcome, error: result.failure.map { "\($0)" }, at: Date())
        metrics?.counter(Self.runsMetric, help: Self.runsHelp, labels: [("source", job.source), ("outcome", result.outcome.rawValue)]).increment()
        var metadata: Logger.Metadata = ["source": "\(job.source)", "outcome": "\(result.outcome.rawValue)", "ms": "\(milliseconds)"]
        if let id { metadata["run"] = "\(id)" }
        switch result {
        case let .success(summary):
            metadata["items"] = "\(summary.itemCount)"
            logger.info("fetch finished", metadata: metadata)
        case let .failure(error):
            metadata["error"] = "\(error)"
            logger.error(error.outcome == .suspect ? "fetch looked wrong; stored data kept" : "fetch failed; stored data kept", metadata: metadata)
        }
    }

    /// Runs `work`, cancelling it when `timeout` passes first.
    static func withTimeout(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> FetchSummary) async -> Result {
        await withTaskGroup(of: Result?.self) { group in
            group.addTask {
                do { return .success(try await work()) } catch { return .failure(FetchError(error)) }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .failure(.timedOut(seconds: timeout.seconds))
            }
            var outcome: Result = .failure(.timedOut(seconds: timeout.seconds))
            if let first = await group.next(), let result = first {
                outcome = result
            }
            group.cancelAll()
            return outcome
        }
    }
}

extension Result where Failure == FetchError {
    var outcome: FetchOutcome {
        switch self {
        case .success: .ok
        case let .failure(error): error.outcome
        }
    }

    var failure: FetchError? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
