import HTTPServer
import Metrics
import Synchronization

/// Every channel subscribed on this process, and the fan-out of a change to them: the change's `data` is encoded once,
/// each group of channels that would receive the same bytes (serializer, topic, join ref, ids) gets one message,
/// and each event loop one hop for all of its sockets (``WebSocket/send(_:to:)``).
final class RealtimeHub: Sendable {
    /// One joined channel's subscription.
    struct Subscription: Sendable {
        var socket: WebSocket
        var version: PhoenixVersion
        var topic: String
        var joinRef: String?
        var bindings: [PostgresChangeBinding]
    }

    /// A joined channel: its socket's handler and its topic.
    struct Key: Hashable {
        var socket: ObjectIdentifier
        var topic: String
    }

    /// What makes two subscriptions receive the same bytes for one change.
    private struct Wire: Hashable {
        var version: PhoenixVersion
        var topic: String
        var joinRef: String?
        var ids: [Int]
    }

    private let subscriptions = Mutex<[Key: Subscription]>([:])
    private let tables: [String: RealtimeTable]
    private let events: Counter?
    private let deliveries: Counter?

    init(tables: [RealtimeTable], metrics: MetricsRegistry?) {
        self.tables = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        events = metrics?.counter("pier_realtime_events_total", help: "Table changes fanned out to Realtime's subscribers (after coalescing).")
        deliveries = metrics?.counter(
            "pier_realtime_deliveries_total", help: "postgres_changes messages sent to Realtime's subscribers (events times the channels that wanted them).")
    }

    func subscribe(_ key: Key, _ subscription: Subscription) {
        subscriptions.withLock { $0[key] = subscription }
    }

    func unsubscribe(_ key: Key) {
        _ = subscriptions.withLock { $0.removeValue(forKey: key) }
    }

    var count: Int { subscriptions.withLock { $0.count } }

    /// Sends `change` to every channel with a binding that wants it.
    func publish(_ change: TableChange) {
        guard let table = tables[change.table] else { return }
        var groups: [Wire: [WebSocket]] = [:]
        subscriptions.withLock { subscriptions in
            for subscription in subscriptions.values {
                var ids: [Int] = []
                for binding in subscription.bindings where binding.matches(change) { ids.append(binding.id) }
                guard !ids.isEmpty else { continue }
                let wire = Wire(version: subscription.version, topic: subscription.topic, joinRef: subscription.joinRef, ids: ids)
                groups[wire, default: []].append(subscription.socket)
            }
        }
        events?.increment()
        guard !groups.isEmpty else { return }
        let data = change.data(columns: table.columns)
        var sent = 0
        for (wire, sockets) in groups {
            let payload = #"{"ids":[\#(wire.ids.map(String.init).joined(separator: ","))],"data":\#(data)}"#
            let text = PhoenixMessage.encode(
                joinRef: wire.joinRef, ref: nil, topic: wire.topic, event: "postgres_changes", payload: payload, version: wire.version)
            WebSocket.send(.text(text), to: sockets)
            sent += sockets.count
        }
        deliveries?.increment(by: UInt64(sent))
    }
}
