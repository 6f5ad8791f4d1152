import Foundation
import Synchronization

/// Challenges shown to this replica, until they expire: a challenge is spent here by the first request the shares
/// admitted, whatever its outcome, and reaches PostgreSQL (``AppAttestStore/spend(_:expires:)``, where every replica
/// sees it) only once its proof verified — so a flood of junk proofs writes no row. Bounded: what the shares admit
/// in a challenge's lifetime, and at most ``capacity``; full of live challenges, it refuses (the caller retries with a
/// new challenge once the flood's have expired).
final class SpentChallenges: Sendable {
    /// Challenges held at most (32 bytes, an expiry and the table's own storage each: ~12 MB).
    static let capacity = 100_000

    private struct State {
        var expiries: [[UInt8]: Date] = [:]
        /// The earliest expiry held: nothing to drop before it.
        var earliest = Date.distantFuture
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int = SpentChallenges.capacity) {
        self.capacity = capacity
    }

    /// Spends `challenge` here; `false` when it was spent before (or no room is left until challenges expire).
    func spend(_ challenge: [UInt8], expires: Date, now: Date) -> Bool {
        state.withLock { state in
            if state.expiries.count >= capacity && state.earliest <= now {
                state.expiries = state.expiries.filter { $0.value > now }
                state.earliest = state.expiries.values.min() ?? .distantFuture
            }
            guard state.expiries[challenge] == nil, state.expiries.count < capacity else { return false }
            state.expiries[challenge] = expires
            state.earliest = min(state.earliest, expires)
            return true
        }
    }

    var count: Int { state.withLock { $0.expiries.count } }
}
