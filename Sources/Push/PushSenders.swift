import APNsFormat
import Synchronization

/// Where each app's pushes go: the engine's sender (its key and topic), or an app's own where the app named another
/// topic or key (``PushApp``). A push of an app nobody enabled goes with the engine's.
public final class PushSenders: Sendable {
    private let fallback: any PushSender
    private let byApp = Mutex<[String: any PushSender]>([:])

    public init(_ fallback: any PushSender) {
        self.fallback = fallback
    }

    public func set(_ sender: any PushSender, for app: String) {
        byApp.withLock { $0[app] = sender }
    }

    public func sender(for app: String) -> any PushSender {
        byApp.withLock { $0[app] } ?? fallback
    }

    /// Each of `pushes` through its app's sender (each app's at once, the apps side by side); results in their order.
    func send(_ pushes: [ClaimedPush]) async -> [APNsResult] {
        let apps = Dictionary(grouping: pushes.indices, by: { pushes[$0].app })
        if apps.count == 1, let app = apps.keys.first {
            return await sender(for: app).send(pushes.map(\.notification))
        }
        var results = [APNsResult?](repeating: nil, count: pushes.count)
        await withTaskGroup(of: ([Int], [APNsResult]).self) { group in
            for (app, indices) in apps {
                let sender = sender(for: app)
                let notifications = indices.map { pushes[$0].notification }
                group.addTask { (indices, await sender.send(notifications)) }
            }
            for await (indices, answers) in group {
                for (index, answer) in zip(indices, answers) { results[index] = answer }
            }
        }
        return results.map { $0 ?? .retry(status: 0, reason: "stopped") }
    }
}
