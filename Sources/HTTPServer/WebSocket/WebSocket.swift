/// One open WebSocket, as a route's handler and other threads hold it: what it sends is queued on the socket's event
/// loop (at once when called there, else through the loop's inbox), in order; after the socket closed it is dropped.
public final class WebSocket: Sendable {
    private let loop: EventLoop
    private let fd: Int32
    private let serial: UInt64
    /// The TCP peer (a proxy, behind one).
    public let peer: IPAddress
    /// Who the socket counts as (``WebSocketDecision/accept(client:open:)``).
    public let client: IPAddress

    init(loop: EventLoop, fd: Int32, serial: UInt64, peer: IPAddress, client: IPAddress) {
        self.loop = loop
        self.fd = fd
        self.serial = serial
        self.peer = peer
        self.client = client
    }

    /// Sends a message.
    public func send(_ message: WebSocketMessage) {
        let frame = Self.frame(message)
        onLoop { $0.send(frame) }
    }

    /// Starts the closing handshake with `code`; the handler is told at once.
    public func close(_ code: WebSocketCloseCode = .normal, reason: String = "") {
        onLoop { $0.close(code, reason: reason) }
    }

    /// Runs `work` on the socket's loop, where its handler is called.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        loop.perform(work)
    }

    /// Sends one message to many sockets: encoded once, and one hop to each loop they live on, not one per socket
    /// (a change fanned out to 20,000 subscribers).
    public static func send(_ message: WebSocketMessage, to sockets: some Sequence<WebSocket>) {
        let frame = frame(message)
        var byLoop: [Int: (loop: EventLoop, sockets: [WebSocket])] = [:]
        for socket in sockets { byLoop[socket.loop.index, default: (socket.loop, [])].sockets.append(socket) }
        for (_, group) in byLoop {
            group.loop.perform {
                for socket in group.sockets { group.loop.webSocketConnection(socket.fd, serial: socket.serial)?.send(frame) }
            }
        }
    }

    private static func frame(_ message: WebSocketMessage) -> [UInt8] {
        switch message {
        case .text(let text): WebSocketFrame(opcode: .text, payload: Array(text.utf8)).bytes
        case .binary(let bytes): WebSocketFrame(opcode: .binary, payload: bytes).bytes
        }
    }

    private func onLoop(_ work: @escaping @Sendable (WebSocketConnection) -> Void) {
        let (loop, fd, serial) = (loop, fd, serial)
        loop.perform { if let connection = loop.webSocketConnection(fd, serial: serial) { work(connection) } }
    }
}
