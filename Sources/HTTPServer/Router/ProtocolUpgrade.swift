/// A route that may switch its connection to another protocol (`101 Switching Protocols`, RFC 9110 §15.2.2), such as
/// WebSocket (``Router/webSocket(_:access:_:)``). The HTTP connection only asks it and, on a switch, writes the `101`
/// and hands the socket over: what the other protocol is, and how it is spoken, stays on its side.
public struct ProtocolUpgrade: Sendable {
    /// What the route answered a request, on the loop.
    enum Answer {
        /// Not switched: this answer instead, and the connection goes on with HTTP.
        case respond(HTTPResponse)
        /// Switched: `headers` go into the `101`, then `take` is given the socket.
        case switching(headers: HTTPHeaders, take: (consuming UpgradedSocket) -> Void)
    }

    /// Called with the request, the loop it arrived on and its route's name (for a logged failure).
    let answer: @Sendable (HTTPRequest, EventLoop, String) -> Answer
}

/// A socket leaving HTTP/1.1 after its `101`: what was read after the request (the other protocol's first bytes) and
/// what is still unwritten (the `101` itself) go with it.
struct UpgradedSocket {
    let fd: Int32
    let serial: UInt64
    let peer: IPAddress
    let input: InputBuffer
    let output: OutputQueue
}
