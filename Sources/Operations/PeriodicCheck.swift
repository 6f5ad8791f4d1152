import Synchronization

/// A monitor's background loop: its check once now (so the first `/health` is already right), then every interval
/// until ``stop()`` — what ``DatabaseMonitor`` remembers is read by `/health` without waiting.
final class PeriodicCheck: Sendable {
    private let interval: Duration
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(every interval: Duration) {
        self.interval = interval
    }

    func start(_ check: @escaping @Sendable () async -> Void) async {
        await check()
        let interval = interval
        let loop = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                await check()
            }
        }
        task.withLock { $0 = loop }
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }
}
