import APNsFormat
import Feature
import Foundation
import Logging
import OnDemand
import Parsing
import Synchronization

/// The delivery engine as other features use it: the outbox to enqueue into and a nudge for this replica's delivery
/// loop. A feature hands it "this payload to these devices" (``PushOutbox/enqueue(_:)``); the engine does the rest.
public final class PushEngine: Sendable {
    public let outbox: PushOutbox
    /// What registering a device may cost (the features' device routes ask it first).
    public let registrations: RegistrationLimits
    let delivery: PushDelivery
    let metrics: PushMetrics
    private let settings: PushSettings
    private let state = Mutex(Snapshot())
    private let logger: Logger

    /// What `/health` shows, refreshed by the delivery loop (never a token, never a place).
    struct Snapshot: Sendable {
        var pending = 0
        var oldestPendingAge = 0.0
        var devices = 0
        var lastDelivery: Date?
        var lastError: String?
    }

    /// Each app's sender, and how one is made for a key and topic of an app's own.
    private let senders: PushSenders
    private let makeSender: @Sendable (PushSettings.Key) throws -> any PushSender

    init(
        outbox: PushOutbox, sender: any PushSender, settings: PushSettings, registrations: RegistrationLimits, metrics: PushMetrics, logger: Logger,
        makeSender: @escaping @Sendable (PushSettings.Key) throws -> any PushSender
    ) {
        self.outbox = outbox
        self.registrations = registrations
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        self.makeSender = makeSender
        senders = PushSenders(sender)
        delivery = PushDelivery(outbox: outbox, senders: senders, settings: settings.delivery, metrics: metrics, logger: logger)
    }

    /// Pushes `app`'s with its own topic and key where it names them (else the engine's `PIER_APNS_*`).
    public func enable(_ app: PushApp) throws {
        guard !app.usesDefault, let defaultKey = settings.key else { return }
        senders.set(try makeSender(app.key(over: defaultKey)), for: app.name)
    }

    /// Something was enqueued: this replica delivers it now rather than at its next look.
    public func wake() {
        delivery.wake()
    }

    /// Delivers until cancelled; looks at the outbox's depth every few seconds and prunes hourly.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.delivery.run(onRound: { round in self.delivered(round) }) }
            group.addTask { await self.watch() }
            await group.waitForAll()
        }
    }

    private func delivered(_ round: PushDelivery.Round) {
        if round.recorded.delivered > 0 { state.withLock { $0.lastDelivery = Date() } }
    }

    private func watch() async {
        var lastPrune = Date.distantPast
        while !Task.isCancelled {
            do {
                if Date().timeIntervalSince(lastPrune) >= 3600 {
                    let pruned = try await outbox.prune(deviceRetention: settings.deviceRetention, keep: settings.keep)
                    if pruned.devices > 0 { logger.info("devices not seen for the retention period deleted", metadata: ["devices": "\(pruned.devices)"]) }
                    lastPrune = Date()
                }
                let depth = try await outbox.depth()
                metrics.set(depth)
                state.withLock {
                    $0.pending = depth.pending
                    $0.oldestPendingAge = depth.oldestPendingAge
                    $0.devices = depth.devices
                    $0.lastError = nil
                }
            } catch {
                state.withLock { $0.lastError = "the outbox could not be read" }
            }
            try? await Task.sleep(for: .seconds(5))
        }
    }

    /// `/health`'s `push` member.
    func health() -> PushHealth {
        let snapshot = state.withLock { $0 }
        return PushHealth(
            state: snapshot.lastError == nil ? "ok" : "failing", pending: snapshot.pending, oldestPendingSeconds: Int(snapshot.oldestPendingAge),
            devices: snapshot.devices, lastDelivery: snapshot.lastDelivery.map { UTCInstant.string(Int($0.timeIntervalSince1970)) })
    }
}
