/// A socket's WebSocket state on its connection, loop-confined: the frame parser and message assembler, the route's
/// handler, and where the closing handshake stands.
final class WebSocketSession {
    enum State {
        case open
        /// We sent a close frame at this instant and wait for the peer's (at most the close timeout).
        case closeSent(at: UInt64)
        /// Both sides are done: the connection closes once its output is written.
        case finished
    }

    let socket: WebSocket
    var handler: (any WebSocketHandler)?
    let settings: WebSocketSettings
    var frames: WebSocketFrameParser
    var messages: WebSocketMessages
    var state = State.open
    /// When the peer last sent a whole message or a ping (the idle timer).
    var lastHeard: UInt64
    /// When the message being assembled began (its first fragment); `nil` between messages.
    var messageStartedAt: UInt64?
    /// A pong owed while earlier output is still unread: only the latest ping's is kept (RFC 6455 §5.5.3), and sent
    /// once the output drains, so a peer that pings and never reads makes the server hold one pong, not one per ping.
    var owedPong: [UInt8]?
    /// The control-frame budget (``WebSocketSettings/controlFramesPerSecond``, a burst of ``WebSocketSettings/controlFrameBurst``).
    private var controlFrames: TokenBucket
    private var told = false
    /// Whether the socket left the counts (its closing handshake is done, or the connection closed).
    var released = false

    init(socket: WebSocket, settings: WebSocketSettings, now: UInt64) {
        self.socket = socket
        self.settings = settings
        frames = WebSocketFrameParser(maxPayloadBytes: settings.maxMessageBytes)
        messages = WebSocketMessages(maxMessageBytes: settings.maxMessageBytes)
        lastHeard = now
        controlFrames = TokenBucket(
            ratePerSecond: Double(settings.controlFramesPerSecond), capacity: Double(settings.controlFrameBurst), now: Double(now) / 1e9)
    }

    /// Takes one control frame from the budget; `false` when the peer sends them faster than the rate allows.
    func takeControlFrame(now: UInt64) -> Bool {
        controlFrames.take(now: Double(now) / 1e9)
    }

    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    /// Tells the handler once that the socket ends, with `code` (`nil`: the connection was lost), and lets it go.
    func tellClosed(_ code: WebSocketCloseCode?) {
        guard !told else { return }
        told = true
        let handler = handler
        self.handler = nil
        handler?.closed(code)
    }
}
