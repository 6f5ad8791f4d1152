import Synchronization

/// Open sockets in all, per client and per client network, shared by every loop: the caps are checked against them.
final class WebSocketCounts: Sendable {
    private struct State {
        var total = 0
        var perClient: [IPAddress: Int] = [:]
        var perNetwork: [IPAddress: Int] = [:]
    }

    private let state = Mutex(State())

    var total: Int { state.withLock { $0.total } }

    /// Counts a socket for `client` unless a cap is reached (`cap`: in all); the status refusing it otherwise.
    func admit(_ client: IPAddress, cap: Int, settings: WebSocketSettings) -> HTTPStatus? {
        let network = WebSocketSettings.network(of: client)
        return state.withLock { state in
            guard state.total < cap else { return .serviceUnavailable }
            let held = state.perClient[client, default: 0]
            let inNetwork = state.perNetwork[network, default: 0]
            guard held < settings.maxSocketsPerClient, inNetwork < settings.maxSocketsPerNetwork else { return .tooManyRequests }
            state.total += 1
            state.perClient[client] = held + 1
            state.perNetwork[network] = inNetwork + 1
            return nil
        }
    }

    func release(_ client: IPAddress) {
        let network = WebSocketSettings.network(of: client)
        state.withLock { state in
            state.total -= 1
            let held = state.perClient[client, default: 1] - 1
            state.perClient[client] = held > 0 ? held : nil
            let inNetwork = state.perNetwork[network, default: 1] - 1
            state.perNetwork[network] = inNetwork > 0 ? inNetwork : nil
        }
    }
}
