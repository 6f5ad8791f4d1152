import Synchronization

/// Open sockets in all and per client, shared by every loop: the caps are checked against them.
final class WebSocketCounts: Sendable {
    private struct State {
        var total = 0
        var perClient: [IPAddress: Int] = [:]
    }

    private let state = Mutex(State())

    var total: Int { state.withLock { $0.total } }

    /// Counts a socket for `client` unless a cap is reached; the status refusing it otherwise.
    func admit(_ client: IPAddress, settings: WebSocketSettings) -> HTTPStatus? {
        state.withLock { state in
            guard state.total < settings.maxSockets else { return .serviceUnavailable }
            let held = state.perClient[client, default: 0]
            guard held < settings.maxSocketsPerClient else { return .tooManyRequests }
            state.total += 1
            state.perClient[client] = held + 1
            return nil
        }
    }

    func release(_ client: IPAddress) {
        state.withLock { state in
            state.total -= 1
            let held = state.perClient[client, default: 1] - 1
            state.perClient[client] = held > 0 ? held : nil
        }
    }
}
