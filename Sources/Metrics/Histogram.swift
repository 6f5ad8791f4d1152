import Synchronization

/// Counts observations into cumulative buckets, Prometheus style.
public final class Histogram: Sendable {
    /// Upper bounds of the buckets, ascending; `+Inf` is implied.
    public let bounds: [Double]
    private let state: Mutex<State>

    struct State {
        var counts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0
    }

    /// Latency buckets in seconds, from 100 µs to 10 s.
    public static let latencyBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    public init(bounds: [Double]) {
        self.bounds = bounds.sorted()
        self.state = Mutex(State(counts: Array(repeating: 0, count: bounds.count)))
    }

    public func observe(_ value: Double) {
        // Linear scan: bucket lists are short and the branch pattern is predictable.
        var index = bounds.count
        for (i, bound) in bounds.enumerated() where value <= bound {
            index = i
            break
        }
        state.withLock { state in
            if index < state.counts.count { state.counts[index] &+= 1 }
            state.sum += value
            state.count &+= 1
        }
    }

    /// Cumulative counts per bound, then the total count and the sum.
    public func snapshot() -> (cumulative: [UInt64], count: UInt64, sum: Double) {
        state.withLock { state in
            var running: UInt64 = 0
            let cumulative = state.counts.map { running &+= $0; return running }
            return (cumulative, state.count, state.sum)
        }
    }
}
