
/// The classic rate limiter: `capacity` tokens, refilled continuously at `ratePerSecond`; a request takes one.
/// Over any interval of `t` seconds at most `capacity + ratePerSecond × t` tokens are taken.
public struct TokenBucket: Sendable, Equatable {
    public let ratePerSecond: Double
    public let capacity: Double
    public private(set) var tokens: Double
    private var updatedAt: Double

    /// A full bucket at time `now` (seconds on any monotonic clock).
    public init(ratePerSecond: Double, capacity: Double, now: Double) {
        self.ratePerSecond = max(0, ratePerSecond)
        self.capacity = max(0, capacity)
        tokens = self.capacity
        updatedAt = now
    }

    /// Adds what accrued since the last update, up to the capacity.
    public mutating func refill(now: Double) {
        guard now > updatedAt else { return }
        tokens = min(capacity, tokens + (now - updatedAt) * ratePerSecond)
        updatedAt = now
    }

    /// Whether a whole token is there (after refilling).
    public mutating func hasToken(now: Double) -> Bool {
        refill(now: now)
        return tokens >= 1
    }

    /// Takes one token if there is one.
    public mutating func take(now: Double) -> Bool {
        guard hasToken(now: now) else { return false }
        tokens -= 1
        return true
    }

    /// Takes `units` if one whole token is there: a request that costs more than one (a write of many rows) is let
    /// through on its first token and leaves the rest as a debt (tokens below zero), repaid at the rate before the
    /// next one — so a request never costs more than the bucket can ever hold, and the cost is still paid in full.
    public mutating func take(now: Double, units: Double) -> Bool {
        guard hasToken(now: now) else { return false }
        tokens -= units
        return true
    }

    /// Charges `units` after the fact (what a request turned out to cost), as a debt if the tokens are short.
    public mutating func charge(now: Double, units: Double) {
        refill(now: now)
        tokens -= units
    }

    /// Seconds until a whole token is there: 0 when one is; infinity when none ever will be (no rate, or a
    /// capacity below one token).
    public func secondsUntilToken(now: Double) -> Double {
        var copy = self
        copy.refill(now: now)
        if copy.tokens >= 1 { return 0 }
        guard ratePerSecond > 0, capacity >= 1 else { return .infinity }
        return (1 - copy.tokens) / ratePerSecond
    }

    /// True when the bucket is back at capacity: such a bucket is the same as a new one and can be forgotten.
    public func isFull(now: Double) -> Bool {
        var copy = self
        copy.refill(now: now)
        return copy.tokens >= capacity
    }
}
