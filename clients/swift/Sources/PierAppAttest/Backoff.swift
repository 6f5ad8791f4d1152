import Foundation

/// When the next attempt may be made after failures: `Retry-After` when Pier says it, else doubling from 30 seconds
/// to an hour with jitter, so that many apps whose attempts failed together (Apple's service down) do not retry
/// together.
struct Backoff: Sendable {
    static let first: TimeInterval = 30
    static let longest: TimeInterval = 3600

    private var failures = 0
    private var notBefore: Date?

    func allows(_ now: Date) -> Bool {
        notBefore.map { now >= $0 } ?? true
    }

    mutating func failed(_ now: Date, retryAfter: Int?) {
        failures += 1
        let doubling = min(Self.longest, Self.first * pow(2, Double(min(failures - 1, 16))))
        let wait = retryAfter.map(TimeInterval.init) ?? doubling * Double.random(in: 0.5...1)
        notBefore = now.addingTimeInterval(wait)
    }

    mutating func succeeded() {
        failures = 0
        notBefore = nil
    }
}
