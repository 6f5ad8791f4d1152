import Foundation
import Logging
import Synchronization

/// Keeps every job's source fresh in the background: runs a job when its schedule says so (at once when its
/// data is missing or overdue), retries failures with exponential backoff, spreads runs with random jitter,
/// and reloads the status board from `fetch_runs` so runs by other replicas count.
public final class FetchScheduler: Sendable {
    public struct Configuration: Sendable {
        /// Up to this much random delay is added to every scheduled run and retry.
        public var jitter: Duration = .seconds(60)
        /// How often the board is reloaded from the database and due times are re-checked.
        public var tick: Duration = .seconds(15)

        public init(jitter: Duration = .seconds(60), tick: Duration = .seconds(15)) {
            self.jitter = jitter
            self.tick = tick
        }
    }

    private let runner: FetchRunner
    private let log: FetchRunLog
    private let jobs: [FetchJob]
    private let configuration: Configuration
    private let logger: Logger
    private let isLeader: @Sendable () -> Bool
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// - Parameter isLeader: whether this process runs the fetches now (one leader among replicas); the
    ///   others keep their loops idle and only reload the board.
    public init(
        runner: FetchRunner, log: FetchRunLog, jobs: [FetchJob], configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "pier.fetch"), isLeader: @escaping @Sendable () -> Bool = { true }
    ) {
        self.runner = runner
        self.log = log
        self.jobs = jobs
        self.configuration = configuration
        self.logger = logger
        self.isLeader = isLeader
    }

    /// Starts one loop per job and one that reloads the board; returns at once.
    public func start() {
        let loops = jobs.map { job in Task { [self] in await loop(job) } }
        let reload = Task { [self] in
            while !Task.isCancelled {
                await reloadBoard()
                try? await Task.sleep(for: configuration.tick)
            }
        }
        tasks.withLock { $0 = loops + [reload] }
    }

    /// Cancels the loops; a run in flight is cancelled too (its transaction either committed or rolls back).
    public func stop() {
        tasks.withLock { tasks in
            tasks.forEach { $0.cancel() }
            tasks = []
        }
    }

    /// Loads what `fetch_runs` knows and closes runs a dead process left open. Call before ``start()``.
    public func prepare() async {
        let longest = jobs.map(\.timeout.seconds).max() ?? 600
        do {
            let closed = try await log.closeAbandoned(olderThan: Int(longest) * 2)
            if closed > 0 { logger.warning("closed fetch runs left open by a stopped process", metadata: ["runs": "\(closed)"]) }
        } catch {
            logger.warning("could not close abandoned fetch runs", metadata: ["error": "\(error)"])
        }
        await reloadBoard()
    }

    /// Reads what `fetch_runs` knows into the board now: after another replica announced new data, so that
    /// `/health` here tells the state of the data this process serves (not only at the next tick). With `source`, that
    /// source's history only: after its own data was reloaded — reading every source's then said `ok` for a source whose
    /// announcement was still being reloaded (seen under load: `/health` `ok` before the answer was there).
    public func reloadBoard(only source: String? = nil) async {
        do {
            let histories = try await log.histories()
            runner.board.load(source.map { source in histories.filter { $0.key == source } } ?? histories)
        } catch {
            logger.debug("could not reload fetch history", metadata: ["error": "\(error)"])
        }
    }

    private func loop(_ job: FetchJob) async {
        var failures = 0
        var retryAt: Date?
        var jitter = randomJitter()
        while !Task.isCancelled {
            let now = Date()
            let lastSuccess = runner.board.history(job.source).lastSuccess
            let scheduled = job.schedule.nextRun(after: lastSuccess, now: now)
            // Overdue or missing data is fetched at once; planned runs get the jitter.
            let due = retryAt ?? (scheduled <= now ? now : scheduled.addingTimeInterval(jitter))
            if due > now || !isLeader() {
                // A standby re-checks often, so that it takes over within a second of becoming leader.
                let pause = due > now ? min(due.timeIntervalSince(now), configuration.tick.seconds) : min(configuration.tick.seconds, 1)
                try? await Task.sleep(for: .milliseconds(Int64(pause * 1000)))
                continue
            }
            switch await runner.run(job) {
            case .success:
                failures = 0
                retryAt = nil
            case .failure:
                if Task.isCancelled { return }
                failures += 1
                let delay = job.retry.delay(afterFailures: failures) + randomJitter()
                retryAt = Date().addingTimeInterval(delay)
                logger.info("fetch will be retried", metadata: ["source": "\(job.source)", "in_s": "\(Int(delay))", "failures": "\(failures)"])
            }
            jitter = randomJitter()
        }
    }

    private func randomJitter() -> TimeInterval {
        let limit = configuration.jitter.seconds
        return limit > 0 ? Double.random(in: 0...limit) : 0
    }
}
