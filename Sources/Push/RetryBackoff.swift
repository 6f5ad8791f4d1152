import Basics
/// When a push APNs asked to retry (`429`, `5xx`, no answer) is tried again: exponential from `base`, capped, with full
/// jitter (a random wait between half of it and all of it), so that replicas and devices refused together do not come
/// back together.
public struct RetryBackoff: Sendable, Equatable {
    public var base: Duration
    public var maximum: Duration

    public init(base: Duration = .seconds(5), maximum: Duration = .seconds(900)) {
        self.base = base
        self.maximum = maximum
    }

    /// The wait after the `attempt`-th try (1 for the first), in seconds; `random` in 0...1.
    public func delay(afterAttempt attempt: Int, random: Double) -> Double {
        let base = self.base.seconds
        let maximum = Double(self.maximum.components.seconds)
        let full = min(maximum, base * Double(1 << min(max(attempt - 1, 0), 20)))
        return full / 2 + full / 2 * min(max(random, 0), 1)
    }
}
