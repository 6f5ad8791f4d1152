import Basics
import HTTPServer
import Metrics

/// The subset of Supabase Realtime the apps subscribe with, at `/realtime/v1/websocket`: Phoenix channels over
/// Pier's WebSockets (`vsn` 1.0.0 objects or 2.0.0 arrays), each joined with postgres_changes bindings on the tables a
/// feature publishes, and those tables' changes fanned out to every channel that wants them. Broadcast, presence and
/// private channels are refused in the join's reply. Knows no table of its own: the feature hands it the tables
/// (``publish(table:)``) and their changes (``publish(_:)``) and judges keys and tokens (``RealtimeAccess``).
public final class RealtimeServer: Sendable {
    public static let path = "/realtime/v1/websocket"

    let tables: PublishedTables
    let access: any RealtimeAccess
    let settings: RealtimeSettings
    let hub: RealtimeHub
    private let coalescer: ChangeCoalescer
    private let joins: Counter?
    private let refusals: Counter?

    /// - Parameter tables: what it publishes from the start; more come with ``publish(table:)`` (a declaration read at
    ///   load). A join binding a table not published is refused.
    public init(tables: [RealtimeTable] = [], access: any RealtimeAccess, settings: RealtimeSettings = RealtimeSettings(), metrics: MetricsRegistry?) {
        let published = PublishedTables(tables)
        self.tables = published
        self.access = access
        self.settings = settings
        let hub = RealtimeHub(tables: published, bindingsPerClient: settings.bindingsPerClient, metrics: metrics)
        self.hub = hub
        coalescer = ChangeCoalescer(window: settings.coalescingWindow) { hub.publish($0) }
        joins = metrics?.counter("pier_realtime_joins_total", help: "Realtime channel joins, by result.", labels: [("result", "ok")])
        refusals = metrics?.counter("pier_realtime_joins_total", help: "Realtime channel joins, by result.", labels: [("result", "refused")])
        metrics?.gauge("pier_realtime_channels", help: "Realtime channels joined on this process.") { Double(hub.count) }
        let coalescer = coalescer
        metrics?.gauge("pier_realtime_coalescing_windows", help: "Coalescing windows open (changes of one kind to one wave within the window).") {
            Double(coalescer.openWindows)
        }
    }

    /// Publishes `table` (replacing one of its name): joins may bind it, its changes reach them.
    public func publish(table: RealtimeTable) {
        tables.publish(table)
    }

    /// A change of a published table, from any replica: to every channel that wants it, coalesced
    /// (``RealtimeSettings/coalescingWindow``).
    public func publish(_ change: TableChange) {
        coalescer.offer(change)
    }

    /// Channels joined on this process.
    public var channels: Int { hub.count }

    /// The upgrade route: the `apikey` (query or header) must be the project's public key — refused before anything
    /// is kept, in the gateway's words —, `vsn` one of the two serializers.
    public func register(in router: inout Router) {
        router.webSocket(Self.path) { [self] request in
            let key = request.query["apikey"] ?? request.headers["apikey"]
            if let refusal = access.refusal(key: key) { return .refuse(refusal) }
            guard let version = PhoenixVersion(query: request.query["vsn"]) else {
                return .refuse(.error(.badRequest, "vsn must be 1.0.0 or 2.0.0"))
            }
            let socketKey = key ?? ""
            return .accept(client: access.client(of: request)) { socket in
                RealtimeSocket(server: self, socket: socket, version: version, key: socketKey)
            }
        }
    }

    func joined(refused refusal: RealtimeRefusal?) {
        (refusal == nil ? joins : refusals)?.increment()
    }
}
