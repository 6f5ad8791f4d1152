import Metrics

/// The server's own metrics: requests by route and status, latency by route, open connections.
public struct ServerMetrics: Sendable {
    public let registry: MetricsRegistry
    let refusedConnections: Counter

    /// `openConnections` is sampled when `/metrics` is rendered: the server's own count is the source.
    init(registry: MetricsRegistry, openConnections: @escaping @Sendable () -> Int) {
        self.registry = registry
        registry.gauge("http_open_connections", help: "Client connections currently open.") { Double(openConnections()) }
        refusedConnections = registry.counter(
            "http_refused_connections_total", help: "Connections answered 503 because the connection limit was reached.")
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
