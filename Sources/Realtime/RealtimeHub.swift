import Basics
import HTTPServer
import Metrics
import Synchronization

/// Every channel subscribed on this process, and the fan-out of a change to them. Subscriptions are indexed by table,
/// event and filter value (``SubscriptionIndex``), so a change looks only at channels with a binding that can match it
/// — never at the others, however many there are. The change's `data` is encoded once, each group of channels that would receive
/// the same bytes (serializer, topic, join ref, ids) gets one message, and each event loop one hop for all of its
/// sockets (``WebSocket/send(_:to:)``).
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

    private struct State {
        var subscriptions: [Key: Subscription] = [:]
        var index = SubscriptionIndex<Key>()
        /// Bindings held per client (who the socket counts as): bounded by ``RealtimeSettings/bindingsPerClient``.
        var perClient: [IPAddress: Int] = [:]
    }

    private let state = Mutex(State())
    private let tables: PublishedTables
    private let bindingsPerClient: Int
    private let events: Counter?
    private let deliveries: Counter?

    init(tables: PublishedTables, bindingsPerClient: Int, metrics: MetricsRegistry?) {
        self.tables = tables
        self.bindingsPerClient = bindingsPerClient
        events = metrics?.counter("pier_realtime_events_total", help: "Table changes fanned out to Realtime's subscribers (after coalescing).")
        deliveries = metrics?.counter(
            "pier_realtime_deliveries_total", help: "postgres_changes messages sent to Realtime's subscribers (events times the channels that wanted them).")
    }

    /// Subscribes a channel (replacing one of the same key); `false` when its socket's client holds as many bindings
    /// as it may.
    func subscribe(_ key: Key, _ subscription: Subscription) -> Bool {
        state.withLock { state in
            remove(key, from: &state)
            let client = subscription.socket.client
            let held = state.perClient[client, default: 0]
            guard held + subscription.bindings.count <= bindingsPerClient else { return false }
            state.perClient[client] = held + subscription.bindings.count
            state.subscriptions[key] = subscription
            state.index.insert(key, subscription.bindings)
            return true
        }
    }

    func unsubscribe(_ key: Key) {
        state.withLock { remove(key, from: &$0) }
    }

    private func remove(_ key: Key, from state: inout State) {
        guard let old = state.subscriptions.removeValue(forKey: key) else { return }
        let client = old.socket.client
        let held = state.perClient[client, default: 0] - old.bindings.count
        state.perClient[client] = held > 0 ? held : nil
        state.index.remove(key, old.bindings)
    }

    var count: Int { state.withLock { $0.subscriptions.count } }

    /// Sends `change` to every channel with a binding that wants it.
    func publish(_ change: TableChange) {
        guard let table = tables[change.table] else { return }
        var groups: [Wire: [WebSocket]] = [:]
        state.withLock { state in
            for key in state.index.candidates(change) {
                guard let subscription = state.subscriptions[key] else { continue }
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
            let payload = JSONWriter.text { json in
                json.object { json in
                    json.member("ids", array: { json in for id in wire.ids { json.number(id) } })
                    json.member("data", json: data.utf8)
                }
            }
            let text = PhoenixMessage.encode(
                joinRef: wire.joinRef, ref: nil, topic: wire.topic, event: "postgres_changes", payload: payload, version: wire.version)
            WebSocket.send(.text(text), to: sockets)
            sent += sockets.count
        }
        deliveries?.increment(by: UInt64(sent))
    }
}
