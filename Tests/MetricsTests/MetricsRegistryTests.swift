import Metrics
import XCTest

final class MetricsRegistryTests: XCTestCase {
    func testCountersWithLabelsRenderInPrometheusFormat() {
        let registry = MetricsRegistry()
        registry.counter("requests_total", help: "Requests.", labels: [("route", "/a"), ("status", "200")]).increment(by: 3)
        registry.counter("requests_total", help: "Requests.", labels: [("route", "/b\"x"), ("status", "404")]).increment()
        let text = registry.render()
        XCTAssertTrue(text.contains("# HELP requests_total Requests.\n# TYPE requests_total counter\n"), text)
        XCTAssertTrue(text.contains("requests_total{route=\"/a\",status=\"200\"} 3\n"), text)
        XCTAssertTrue(text.contains("requests_total{route=\"/b\\\"x\",status=\"404\"} 1\n"), "label values are escaped: \(text)")
        XCTAssertEqual(text.components(separatedBy: "# TYPE requests_total").count, 2, "one TYPE line per family")
    }

    func testSameNameAndLabelsGiveTheSameCounter() {
        let registry = MetricsRegistry()
        let first = registry.counter("c", help: "C.", labels: [("k", "v")])
        let second = registry.counter("c", help: "C.", labels: [("k", "v")])
        first.increment()
        second.increment()
        XCTAssertTrue(first === second)
        XCTAssertEqual(first.value, 2)
    }

    func testGaugeGoesUpAndDownAcrossThreads() {
        let gauge = Gauge()
        DispatchQueue.concurrentPerform(iterations: 1000) { i in gauge.add(i % 2 == 0 ? 1 : -1) }
        XCTAssertEqual(gauge.value, 0)
        gauge.set(1.5)
        XCTAssertEqual(gauge.value, 1.5)
    }

    func testHistogramBucketsAreCumulative() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram("latency_seconds", help: "L.", labels: [("route", "/x")], buckets: [0.1, 1])
        for value in [0.05, 0.5, 0.5, 3.0] { histogram.observe(value) }
        let text = registry.render()
        XCTAssertTrue(text.contains("latency_seconds_bucket{route=\"/x\",le=\"0.1\"} 1\n"), text)
        XCTAssertTrue(text.contains("latency_seconds_bucket{route=\"/x\",le=\"1\"} 3\n"), text)
        XCTAssertTrue(text.contains("latency_seconds_bucket{route=\"/x\",le=\"+Inf\"} 4\n"), text)
        XCTAssertTrue(text.contains("latency_seconds_count{route=\"/x\"} 4\n"), text)
        XCTAssertTrue(text.contains("latency_seconds_sum{route=\"/x\"} 4.05\n"), text)
    }

    func testSampledGaugeIsReadAtRenderTime() {
        let registry = MetricsRegistry()
        let source = Gauge()
        registry.gauge("open_things", help: "Things.") { source.value }
        source.set(3)
        XCTAssertTrue(registry.render().contains("open_things 3\n"))
        source.set(5)
        XCTAssertTrue(registry.render().contains("open_things 5\n"))
    }
}
