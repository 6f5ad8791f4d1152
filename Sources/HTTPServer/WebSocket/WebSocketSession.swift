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
    /// When the peer last sent a frame.
    var lastHeard: UInt64
    private var told = false
    /// Whether the socket left the counts (its closing handshake is done, or the connection closed).
    var released = false

    init(socket: WebSocket, settings: WebSocketSettings, now: UInt64) {
        self.socket = socket
        self.settings = settings
        frames = WebSocketFrameParser(maxPayloadBytes: settings.maxMessageBytes)
        messages = WebSocketMessages(maxMessageBytes: settings.maxMessageBytes)
        lastHeard = now
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
