/// What bounds one Realtime socket's channels and messages, and how changes are coalesced; each default written here
/// once (the settings that set them are read by the feature that serves Realtime).
public struct RealtimeSettings: Sendable {
    /// Channels one socket may join (the apps join one; Supabase's default cap is 100 per client).
    public var channelsPerSocket = 10
    /// Bindings one channel may hold, one socket over all its channels, and the sockets of one client together (who
    /// an upgrade counts as): each binding is kept and indexed, so what one socket and one address can make the server
    /// hold is bounded. The apps join one channel with one or two bindings.
    public var bindingsPerChannel = 16
    public var bindingsPerSocket = 32
    public var bindingsPerClient = 1_000
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
    /// Longer refs (`ref`, `join_ref`) close the socket: a join's ref is echoed in every event its channel is sent, so
    /// its length is every event's (the SDKs count refs up from 1).
    static let maxRefBytes = 64
    /// Longer filters are refused in the join's reply (`wave_id=eq.` and an id of 200 characters fit).
    static let maxFilterBytes = 1024

    public init() {}
}
