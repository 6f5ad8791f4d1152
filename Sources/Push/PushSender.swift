import APNs
import APNsFormat
import Logging

/// Where the delivery engine sends a push: APNs (``APNsClient``), or, in the demo, the log.
public protocol PushSender: Sendable {
    func send(_ notification: APNsNotification) async -> APNsResult
    /// Each of `notifications` at once; what became of each, in the same order.
    func send(_ notifications: [APNsNotification]) async -> [APNsResult]
}

extension PushSender {
    public func send(_ notifications: [APNsNotification]) async -> [APNsResult] {
        var results: [APNsResult] = []
        for notification in notifications { results.append(await send(notification)) }
        return results
    }
}

extension APNsClient: PushSender {}

/// The demo's sender (`pier serve --demo`): every push is logged as it would go — the payload, never the token — and
/// counted delivered.
public struct LoggedPushSender: PushSender {
    private let logger: Logger

    public init(logger: Logger = Logger(label: "pier.push.demo")) {
        self.logger = logger
    }

    public func send(_ notification: APNsNotification) async -> APNsResult {
        logger.notice(
            "demo: this push would go to APNs",
            metadata: [
                "environment": "\(notification.environment.rawValue)", "collapse_id": "\(notification.collapseID ?? "")",
                "expiration": "\(notification.expiration)", "payload": "\(String(decoding: notification.payload, as: UTF8.self))",
            ])
        return .delivered(apnsID: "demo")
    }
}
