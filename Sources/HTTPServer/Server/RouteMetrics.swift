import Metrics

/// One route's request counters (by status) and latency histogram, as one event loop reaches them: the registry's
/// shared series, found once per route and status instead of by name on every answer.
final class RouteMetrics {
    private let route: String
    private let server: ServerMetrics
    private let latency: Histogram
    /// The statuses this route answered so far with their counters: a handful, searched in order.
    private var counters: [(status: Int, counter: Counter)] = []

    init(route: String, server: ServerMetrics) {
        self.route = route
        self.server = server
        latency = server.latency(route: route)
    }

    func record(status: Int, seconds: Double) {
        if let held = counters.first(where: { $0.status == status }) {
            held.counter.increment()
        } else {
            let counter = server.requests(route: route, status: status)
            counters.append((status, counter))
            counter.increment()
        }
        latency.observe(seconds)
    }
}
