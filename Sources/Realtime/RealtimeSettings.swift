/// What bounds one Realtime socket's channels and messages, and how changes are coalesced; each default written here
/// once (the settings that set them are read by the feature that serves Realtime).
public struct RealtimeSettings: Sendable {
    /// Channels one socket may join (the apps join one; Supabase's default cap is 100 per client).
    public var channelsPerSocket = 10
    /// Bindings one channel may hold.
    public var bindingsPerChannel = 16
    /// Messages a socket may send each second, sustained, and at once: the apps send a heartbeat every 25–30 s and a
    /// join per channel; past it the socket is closed with `1008` (a heartbeat flood costs every subscriber).
    public var messagesPerSecond = 10.0
    public var messageBurst = 50.0  // five seconds' worth
    /// Changes of one kind to one coalescing value (a wave) within this window reach subscribers once more at its end,
    /// not each: the apps re-read the counts on any event, so a burst of check-ins to one departure costs one fan-out
    /// a second, and the last change is never lost.
    public var coalescingWindow: Duration = .seconds(1)
    /// Longer topics are refused (`realtime:` and a channel name).
    static let maxTopicBytes = 255

    public init() {}
}
