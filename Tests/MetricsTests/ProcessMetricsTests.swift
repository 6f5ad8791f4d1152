import Foundation
import XCTest

@testable import Metrics

final class ProcessMetricsTests: XCTestCase {
    private func value(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    func testTheProcessFiguresAreReadFromProcSelf() throws {
        let registry = MetricsRegistry()
        ProcessMetrics.register(in: registry)
        // Some CPU time to count.
        var sum = 0.0
        for i in 0..<2_000_000 { sum += Double(i).squareRoot() }
        XCTAssertGreaterThan(sum, 0)
        let text = registry.render()
        XCTAssertTrue(text.contains("# TYPE process_cpu_seconds_total counter\n"), text)
        XCTAssertTrue(text.contains("# TYPE process_resident_memory_bytes gauge\n"), text)
        let rss = try XCTUnwrap(value(text, "process_resident_memory_bytes"))
        XCTAssertGreaterThan(rss, Double(1 << 20), "a Swift test process holds more than a MiB")
        XCTAssertLessThan(rss, 64 * Double(1 << 30))
        XCTAssertGreaterThan(try XCTUnwrap(value(text, "process_cpu_seconds_total")), 0)
        let fds = try XCTUnwrap(value(text, "process_open_fds"))
        XCTAssertGreaterThanOrEqual(fds, 3, "stdin, stdout, stderr")
        let opened = open("/dev/null", O_RDONLY)
        defer { close(opened) }
        XCTAssertEqual(value(registry.render(), "process_open_fds"), fds + 1, "one more descriptor is counted")
        XCTAssertGreaterThan(try XCTUnwrap(value(text, "process_max_fds")), fds)
        let start = try XCTUnwrap(value(text, "process_start_time_seconds"))
        let now = Date().timeIntervalSince1970
        XCTAssertLessThanOrEqual(start, now + 1)
        XCTAssertGreaterThan(start, now - 86_400, "this test process started today")
    }
}
