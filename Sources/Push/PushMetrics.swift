import APNsFormat
import Metrics

/// Pushes by what APNs answered (`pier_push_total{result,reason}`: results and Apple's reasons are few and fixed),
/// devices removed for a dead token, and the outbox's depth and oldest pending age (set after each look).
public final class PushMetrics: Sendable {
    private let registry: MetricsRegistry
    public let devicesRemoved: Counter
    public let pending: Gauge
    public let oldestPendingAge: Gauge
    public let devices: Gauge

    public init(registry: MetricsRegistry) {
        self.registry = registry
        devicesRemoved = registry.counter("pier_push_devices_removed_total", help: "Devices deleted because APNs said their token is gone (410, BadDeviceToken, DeviceTokenNotForTopic).")
        pending = registry.gauge("pier_push_outbox_pending", help: "Pushes waiting in the outbox.")
        oldestPendingAge = registry.gauge("pier_push_outbox_oldest_pending_seconds", help: "Age of the oldest push waiting in the outbox (0 when none is).")
        devices = registry.gauge("pier_push_devices", help: "Devices registered for pushes.")
    }

    /// One answer counted (the registry keeps one counter per result and reason).
    func count(_ result: APNsResult) {
        registry.counter(
            "pier_push_total", help: "Pushes sent to APNs by result (delivered, retry, device_gone, rejected) and APNs' reason.",
            labels: [("result", result.outcome), ("reason", Self.label(result.reason))]
        ).increment()
    }

    func set(_ depth: PushOutbox.Depth) {
        pending.set(Double(depth.pending))
        oldestPendingAge.set(depth.oldestPendingAge)
        devices.set(Double(depth.devices))
    }

    /// Apple's reasons are letters; the transport's failures are one word each (`transport`, `stopped`).
    static func label(_ reason: String) -> String {
        let word = reason.prefix { $0.isLetter }
        return word.isEmpty ? "none" : String(word.prefix(40))
    }
}
