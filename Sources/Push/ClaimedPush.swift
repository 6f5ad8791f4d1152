import APNsFormat

/// An outbox row a replica holds under its lease: what it sends and what it records the answer against.
public struct ClaimedPush: Sendable, Equatable {
    public var id: Int64
    public var deviceID: String
    /// The app the device belongs to (``PushApp``): its pushes go with its topic and key.
    public var app: String
    public var attempts: Int
    public var notification: APNsNotification
}
