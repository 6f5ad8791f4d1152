import APNsFormat
import Logging

/// Delivers the outbox: claims what is due (every replica, each its own rows), sends it through APNs all at once on
/// the one connection per environment (HTTP/2 streams, as many as APNs allows), records every answer, and again —
/// at once while there is more, else after ``Settings/idlePoll`` or when this process enqueued something.
public final class PushDelivery: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Pushes claimed per round.
        public var batch = 500
        /// How long a claim holds: a replica killed mid-batch leaves its rows to the others after this.
        public var lease: Duration = .seconds(60)
        public var maximumAttempts = 8
        public var backoff = RetryBackoff()
        /// The wait between rounds when nothing is due (another replica's enqueue is seen within it).
        public var idlePoll: Duration = .seconds(1)
        /// Rounds under way at once in this process: while one waits for PostgreSQL (its claim, its record), the other's
        /// pushes are on the wire, so the connection is never idle between batches.
        public var concurrentRounds = 2

        public init() {}
    }

    /// One round's outcome, for tests and `pier push deliver`.
    public struct Round: Sendable, Equatable {
        public var claimed = 0
        public var recorded = PushOutbox.Recorded()
    }

    private let outbox: PushOutbox
    private let senders: PushSenders
    private let settings: Settings
    private let metrics: PushMetrics
    private let logger: Logger
    private let nudge = Nudge()

    /// - Parameter sender: every app's pushes' (tests), or ``PushSenders`` each app's.
    public convenience init(outbox: PushOutbox, sender: any PushSender, settings: Settings, metrics: PushMetrics, logger: Logger = Logger(label: "pier.push")) {
        self.init(outbox: outbox, senders: PushSenders(sender), settings: settings, metrics: metrics, logger: logger)
    }

    public init(outbox: PushOutbox, senders: PushSenders, settings: Settings, metrics: PushMetrics, logger: Logger = Logger(label: "pier.push")) {
        self.outbox = outbox
        self.senders = senders
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
    }

    /// Rounds until the task is cancelled (``Settings/concurrentRounds`` at a time, each claiming its own batch);
    /// `onRound` hears each one.
    public func run(onRound: @escaping @Sendable (Round) -> Void = { _ in }) async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, settings.concurrentRounds) {
                group.addTask { await self.rounds(onRound: onRound) }
            }
        }
    }

    private func rounds(onRound: @escaping @Sendable (Round) -> Void) async {
        while !Task.isCancelled {
            do {
                let round = try await deliverDue()
                onRound(round)
                if round.claimed == settings.batch { continue }
            } catch {
                logger.error("push delivery round failed", metadata: ["error": "\(error)"])
            }
            await nudge.wait(atMost: settings.idlePoll)
        }
    }

    /// Something was enqueued here: the next round starts now.
    public func wake() {
        nudge.nudge()
    }

    /// One round: claim, send, record.
    @discardableResult
    public func deliverDue() async throws -> Round {
        let claimed = try await outbox.claim(limit: settings.batch, lease: settings.lease)
        guard !claimed.isEmpty else { return Round() }
        let outcomes = Array(zip(claimed, await senders.send(claimed))).map { (push: $0.0, result: $0.1) }
        for outcome in outcomes { metrics.count(outcome.result) }
        let recorded = try await outbox.record(outcomes, backoff: settings.backoff, maximumAttempts: settings.maximumAttempts)
        metrics.devicesRemoved.increment(by: UInt64(recorded.devicesRemoved))
        if recorded.rejected > 0 || recorded.failed > 0 {
            // Reasons only: never a token.
            let reasons = Set(outcomes.compactMap { $0.result.outcome == "delivered" ? nil : $0.result.reason }).sorted()
            logger.warning("pushes not delivered", metadata: ["rejected": "\(recorded.rejected)", "failed": "\(recorded.failed)", "reasons": "\(reasons.joined(separator: ","))"])
        }
        return Round(claimed: claimed.count, recorded: recorded)
    }
}
