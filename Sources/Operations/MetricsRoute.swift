import HTTPServer
import Metrics

/// `GET /metrics`: every metric of the process in Prometheus text format.
public enum MetricsRoute {
    public static let path = "/metrics"

    public static func register(in router: inout Router, registry: MetricsRegistry) {
        router.on(.get, path) { _ in
            .text(registry.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
