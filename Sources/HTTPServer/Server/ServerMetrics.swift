import Metrics

/// The server's own metrics: requests by route and status, latency by route, open connections.
public struct ServerMetrics: Sendable {
    public let registry: MetricsRegistry
    let refusedConnections: Counter
    private let webSocketMessagesIn: Counter
    private let webSocketMessagesOut: Counter

    /// `openConnections` and `openWebSockets` are sampled when `/metrics` is rendered: the server's own counts are the source.
    init(registry: MetricsRegistry, openConnections: @escaping @Sendable () -> Int, openWebSockets: @escaping @Sendable () -> Int) {
        self.registry = registry
        registry.gauge("http_open_connections", help: "Client connections currently open.") { Double(openConnections()) }
        registry.gauge("websocket_open_sockets", help: "WebSockets currently open.") { Double(openWebSockets()) }
        let messages = "websocket_messages_total"
        let help = "WebSocket data messages received (in) and sent (out)."
        webSocketMessagesIn = registry.counter(messages, help: help, labels: [("direction", "in")])
        webSocketMessagesOut = registry.counter(messages, help: help, labels: [("direction", "out")])
        refusedConnections = registry.counter(
            "http_refused_connections_total", help: "Connections answered 503 because the connection limit was reached.")
    }

    func webSocketMessage(incoming: Bool) {
        (incoming ? webSocketMessagesIn : webSocketMessagesOut).increment()
    }

    func webSocketClosed(_ code: WebSocketCloseCode) {
        registry.counter(
            "websocket_closes_total", help: "WebSocket closing handshakes started or answered, by close code.", labels: [("code", code.description)]
        ).increment()
    }

    func requests(route: String, status: Int) -> Counter {
        registry.counter(
            "http_requests_total", help: "HTTP requests answered, by route and status.",
            labels: [("route", route), ("status", String(status))])
    }

    func latency(route: String) -> Histogram {
        registry.histogram(
            "http_request_duration_seconds", help: "Time from a complete request to its encoded response.",
            labels: [("route", route)])
    }
}
