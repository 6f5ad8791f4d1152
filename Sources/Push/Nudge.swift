import Synchronization

/// Wakes a loop that waits between looks: ``wait(atMost:)`` returns after the time, or as soon as ``nudge()`` is
/// called — also when the nudge came while the loop was busy (it is kept until the next wait).
public final class Nudge: Sendable {
    private struct State {
        var waiting: [CheckedContinuation<Void, Never>] = []
        var pending = false
    }

    private let state = Mutex(State())

    public init() {}

    public func nudge() {
        let waiting = state.withLock { state in
            if state.waiting.isEmpty { state.pending = true }
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    public func wait(atMost duration: Duration) async {
        let pending = state.withLock { state in
            defer { state.pending = false }
            return state.pending
        }
        if pending { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask {
                await withCheckedContinuation { continuation in
                    self.state.withLock { $0.waiting.append(continuation) }
                }
            }
            await group.next()
            group.cancelAll()
            // Whichever ended first, the other child must end too: the continuation is resumed here.
            let waiting = self.state.withLock { state in
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }
}
