import Synchronization

/// A value that goes up and down (open connections, a timestamp). Stored as the bit pattern of a Double so
/// that integer and fractional values share one type.
public final class Gauge: Sendable {
    private let bits = Atomic<UInt64>(Double(0).bitPattern)

    public init() {}

    public func set(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    public func add(_ delta: Double) {
        var current = bits.load(ordering: .relaxed)
        while true {
            let next = (Double(bitPattern: current) + delta).bitPattern
            let (exchanged, original) = bits.compareExchange(
                expected: current, desired: next, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
}
