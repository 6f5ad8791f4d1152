import Synchronization

/// Holds every metric of the process and renders them in the Prometheus text exposition format.
///
/// Looking a metric up takes a lock; hot paths look their metric up once and keep the returned object,
/// whose updates are lock-free (counters, gauges) or take a short uncontended lock (histograms).
public final class MetricsRegistry: Sendable {
    public typealias Labels = [(String, String)]

    private struct Key: Hashable {
        let name: String
        let labels: String
    }

    private struct Family {
        let type: String
        let help: String
        var series: [(labels: String, metric: Metric)] = []
    }

    private enum Metric {
        case counter(Counter)
        case gauge(Gauge)
        case histogram(Histogram)
        case sampled(@Sendable () -> Double)
    }

    private struct State {
        var families: [String: Family] = [:]
        var order: [String] = []
        var index: [Key: Metric] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func counter(_ name: String, help: String, labels: Labels = []) -> Counter {
        let metric = lookup(name, type: "counter", help: help, labels: labels) { .counter(Counter()) }
        if case .counter(let counter) = metric { return counter }
        preconditionFailure("metric \(name) was registered with another type")
    }

    public func gauge(_ name: String, help: String, labels: Labels = []) -> Gauge {
        let metric = lookup(name, type: "gauge", help: help, labels: labels) { .gauge(Gauge()) }
        if case .gauge(let gauge) = metric { return gauge }
        preconditionFailure("metric \(name) was registered with another type")
    }

    /// A gauge whose value is read from `sample` when the registry is rendered, for state the owner
    /// already keeps (so it is not counted twice). Registering the same name and labels again keeps the first.
    public func gauge(_ name: String, help: String, labels: Labels = [], sample: @escaping @Sendable () -> Double) {
        _ = lookup(name, type: "gauge", help: help, labels: labels) { .sampled(sample) }
    }

    /// A counter whose value is read from `sample` when the registry is rendered (a total the owner or the kernel
    /// already keeps: CPU seconds). Registering the same name and labels again keeps the first.
    public func counter(_ name: String, help: String, labels: Labels = [], sample: @escaping @Sendable () -> Double) {
        _ = lookup(name, type: "counter", help: help, labels: labels) { .sampled(sample) }
    }

    public func histogram(
        _ name: String, help: String, labels: Labels = [], buckets: [Double] = Histogram.latencyBuckets
    ) -> Histogram {
        let metric = lookup(name, type: "histogram", help: help, labels: labels) {
            .histogram(Histogram(bounds: buckets))
        }
        if case .histogram(let histogram) = metric { return histogram }
        preconditionFailure("metric \(name) was registered with another type")
    }

    private func lookup(
        _ name: String, type: String, help: String, labels: Labels, make: () -> Metric
    ) -> Metric {
        let rendered = Self.render(labels: labels)
        let key = Key(name: name, labels: rendered)
        return state.withLock { state in
            if let existing = state.index[key] { return existing }
            let metric = make()
            if state.families[name] == nil {
                state.families[name] = Family(type: type, help: help)
                state.order.append(name)
            }
            state.families[name]?.series.append((rendered, metric))
            state.index[key] = metric
            return metric
        }
    }

    /// The whole registry in Prometheus text format (version 0.0.4).
    public func render() -> String {
        let families = state.withLock { state in state.order.compactMap { name in state.families[name].map { (name, $0) } } }
        var out = ""
        out.reserveCapacity(4096)
        for (name, family) in families {
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            for (labels, metric) in family.series {
                switch metric {
                case .counter(let counter):
                    out += "\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(counter.value)\n"
                case .gauge(let gauge):
                    out += "\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(Self.format(gauge.value))\n"
                case .sampled(let sample):
                    out += "\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(Self.format(sample()))\n"
                case .histogram(let histogram):
                    let snapshot = histogram.snapshot()
                    let prefix = labels.isEmpty ? "" : labels + ","
                    for (bound, count) in zip(histogram.bounds, snapshot.cumulative) {
                        out += "\(name)_bucket{\(prefix)le=\"\(Self.format(bound))\"} \(count)\n"
                    }
                    out += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(snapshot.count)\n"
                    let suffix = labels.isEmpty ? "" : "{\(labels)}"
                    out += "\(name)_sum\(suffix) \(Self.format(snapshot.sum))\n"
                    out += "\(name)_count\(suffix) \(snapshot.count)\n"
                }
            }
        }
        return out
    }

    static func render(labels: Labels) -> String {
        labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",")
    }

    static func escape(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
