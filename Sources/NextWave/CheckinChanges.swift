import Logging
import Postgres
import Realtime
import Scheduling
import Synchronization

/// Check-ins as Realtime publishes them (`public.wave_checkins`): the notices their table declares once in SQL
/// (`pier_announce_rows` in Migrations/NextWave/0040: the wave, station, lake and departure — no subscriber learns who checked
/// in), read into Realtime's changes. The topic and the columns come from that declaration, read at load; each notice is
/// the one announcement of a check-in change, heard by every replica (the writer's too): its memory's counts, then
/// Realtime's subscribers.
final class CheckinChanges: Sendable {
    /// The table whose notices these are.
    static let table = "nextwave_checkins"
    /// The name the apps subscribe with.
    static let published = "wave_checkins"

    private let pool: PostgresPool
    private let notices: ChangeNotices
    private let realtime: RealtimeServer
    private let community: CommunityService
    private let started = Mutex(false)
    private let logger = Logger(label: "pier.nextwave.realtime")

    init(pool: PostgresPool, notices: ChangeNotices, realtime: RealtimeServer, community: CommunityService) {
        self.pool = pool
        self.notices = notices
        self.realtime = realtime
        self.community = community
    }

    /// Reads the declaration, publishes the table and listens for its notices — once: a reload after the change feed
    /// reconnected calls it again.
    func start() async throws {
        guard !started.withLock({ $0 }) else { return }
        let declaration = try await RowNoticeDeclaration.read(table: Self.table, on: pool)
        guard !started.withLock({ started in defer { started = true }; return started }) else { return }
        realtime.publish(table: Self.realtimeTable(declaration))
        let community = community, realtime = realtime, logger = logger
        notices.subscribe(declaration.topic) { body in
            community.changed(.checkins)
            guard let changes = Self.changes(body, declaration) else {
                logger.error("a check-in notice is not the declared shape; dropped", metadata: ["bytes": "\(body.utf8.count)"])
                return
            }
            for change in changes { realtime.publish(change) }
        }
    }

    /// The table as the apps subscribe to it, with the declared columns.
    static func realtimeTable(_ declaration: RowNoticeDeclaration) -> RealtimeTable {
        RealtimeTable(name: published, columns: declaration.columns.map { RealtimeTable.Column($0.name, $0.type) })
    }

    /// The changes a notice's `body` holds (one per wave), or `nil` when it is not the declared shape.
    static func changes(_ body: String, _ declaration: RowNoticeDeclaration) -> [TableChange]? {
        guard let notice = RowNotice(body, columns: declaration.columns),
            let wave = declaration.columns.firstIndex(where: { $0.name == declaration.coalescing })
        else { return nil }
        let kind: TableChange.Kind =
            switch notice.kind {
            case .insert: .insert
            case .update: .update
            case .delete: .delete
            }
        let names = declaration.columns.map(\.name)
        func values(_ row: [String?]?) -> [TableChange.Value]? {
            row.map { zip(names, $0).map { TableChange.Value($0, $1) } }
        }
        return notice.rows.map { row in
            TableChange(
                table: published, kind: kind, record: values(row.record), oldRecord: values(row.oldRecord),
                commitTimestamp: notice.commitTimestamp, coalescing: (row.record ?? row.oldRecord)?[wave])
        }
    }
}
