import APNsFormat

/// One push a feature hands the delivery engine: a payload for one device, under a key of the feature's that makes
/// it once-only (the same key for the same device is never enqueued twice, whoever asks again and when).
public struct PushMessage: Sendable, Equatable {
    public var deviceID: String
    /// The feature's name for this push (`warning:<identifier>:alert`), unique per device.
    public var key: String
    /// JSON, at most ``APNsNotification/maximumPayloadBytes``.
    public var payload: String
    public var collapseID: String?
    /// Seconds since 1970: APNs keeps it for an offline device until then, and the engine never sends it later.
    public var expiresAt: Int64
    public var priority: Int

    public init(deviceID: String, key: String, payload: String, collapseID: String? = nil, expiresAt: Int64, priority: Int = 10) {
        self.deviceID = deviceID
        self.key = key
        self.payload = payload
        self.collapseID = collapseID
        self.expiresAt = expiresAt
        self.priority = priority
    }
}
