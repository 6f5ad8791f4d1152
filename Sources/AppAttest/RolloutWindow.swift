import Synchronization

/// The spending requests of the last hour by ``SpendingState``, a minute a slot: what `/health` shows as the share
/// `require` would serve, so an operator can see it before switching. Counted only where a request would spend (a
/// miss of memory and PostgreSQL), so one lock per count costs nothing on the hot path.
final class RolloutWindow: Sendable {
    private struct Slot {
        var minute: Int64 = -1
        var counts = [Int](repeating: 0, count: SpendingState.allCases.count)
    }

    private let slots = Mutex([Slot](repeating: Slot(), count: 60))
    private let clock: @Sendable () -> Double

    /// - Parameter clock: seconds (a monotonic clock; tests pass their own).
    init(clock: @escaping @Sendable () -> Double) {
        self.clock = clock
    }

    func count(_ state: SpendingState) {
        let minute = Int64(clock() / 60)
        let index = SpendingState.allCases.firstIndex(of: state) ?? 0
        slots.withLock { slots in
            let slot = Int(minute % 60)
            if slots[slot].minute != minute { slots[slot] = Slot(minute: minute) }
            slots[slot].counts[index] += 1
        }
    }

    /// The last hour's spending requests and the share of them `require` would serve (`nil` without any).
    func lastHour() -> (requests: Int, provenShare: Double?) {
        let minute = Int64(clock() / 60)
        return slots.withLock { slots in
            var requests = 0, proven = 0
            for slot in slots where slot.minute > minute - 60 {
                for (state, count) in zip(SpendingState.allCases, slot.counts) {
                    requests += count
                    if state.isProven { proven += count }
                }
            }
            return (requests, requests == 0 ? nil : Double(proven) / Double(requests))
        }
    }
}
