import Feature
import Postgres
import Synchronization

/// Remembers PostgreSQL's answer to the last pings (``DatabaseFeature`` pings in the background), so `/health` reports
/// the database without waiting on it: the answer is at most one interval old, and each ping is bounded by a timeout.
///
/// Once the database has answered, one slow or failed ping is not enough to report it unreachable: it takes
/// two in a row. A saturated machine (seen in benchmarks: both cores busy) can miss one ping's timeout, and
/// `/health` turning 503 for that would make a proxy take a healthy replica out.
public final class DatabaseMonitor: Sendable {
    public enum State: String, Sendable {
        case ok
        case unreachable
    }

    /// The server a ping reached, as `/health` reports it (`database_server`): its role, how long Pier has been reaching
    /// that same server, and how many standbys confirm its commits. States only: no host, port or name.
    public struct Server: Sendable, Encodable, Equatable {
        /// `primary`, or `standby` (a `DATABASE_URL` without `target_session_attrs=read-write` may reach one).
        public var role: String
        /// Seconds since the server Pier reaches last changed (a failover or a switchover), or since Pier started.
        public var sinceSeconds: Int
        /// Standbys confirming every commit before it is acknowledged (`sync` or `quorum` in `pg_stat_replication`); nil
        /// when Pier's role may not see them (it needs `pg_monitor`) or on a standby.
        public var synchronousStandbys: Int?

        enum CodingKeys: String, CodingKey {
            case role
            case sinceSeconds = "since_s"
            case synchronousStandbys = "synchronous_standbys"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(role, forKey: .role)
            try container.encode(sinceSeconds, forKey: .sinceSeconds)
            try container.encode(synchronousStandbys, forKey: .synchronousStandbys)
        }
    }

    /// What a ping asks beside `SELECT 1`: whether the server is a standby, which server it is (its address and port,
    /// only compared: a new one after a failover), and its synchronous standbys where Pier may see them.
    static let serverQuery = """
        SELECT pg_is_in_recovery() AS standby, coalesce(host(inet_server_addr()), 'local') || ':' || current_setting('port') AS server,
            CASE WHEN pg_has_role('pg_read_all_stats', 'MEMBER') AND NOT pg_is_in_recovery()
                THEN (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')) END AS synchronous
        """

    private let pool: PostgresPool
    private let timeout: Duration
    private let current = Mutex<State>(.ok)
    /// Consecutive failed pings, and whether any ping ever succeeded.
    private let history = Mutex<(failures: Int, succeeded: Bool)>((0, false))
    /// The server last reached, since when, and what it said.
    private let reached = Mutex<(server: String?, since: ContinuousClock.Instant, standby: Bool, synchronous: Int?)>((nil, .now, false, nil))
    private let changes: (@Sendable () -> Void)?

    /// - Parameter changed: called when the server reached changes (not for the first one).
    public init(pool: PostgresPool, timeout: Duration = .seconds(1), changed: (@Sendable () -> Void)? = nil) {
        self.pool = pool
        self.timeout = timeout
        changes = changed
    }

    public var state: State { current.withLock { $0 } }

    /// The server as last reached; nil before any answer.
    public var server: Server? {
        reached.withLock { reached in
            reached.server.map { _ in
                Server(
                    role: reached.standby ? "standby" : "primary", sinceSeconds: Int((ContinuousClock.now - reached.since).components.seconds),
                    synchronousStandbys: reached.synchronous)
            }
        }
    }

    /// The condition as `/health` reports it (`database`: `ok` or `unreachable`).
    public var readiness: Readiness {
        Readiness(name: "database", states: (State.ok.rawValue, State.unreachable.rawValue)) { [self] in state == .ok }
    }

    /// Pings once and remembers the answer.
    public func check() async {
        let rows = await pool.rows(Self.serverQuery, timeout: timeout)
        let reachable = rows != nil
        if let row = rows?.first, let server = try? row.decode(String.self, "server") {
            let standby = (try? row.decode(Bool.self, "standby")) ?? false
            let synchronous = (try? row.decode(Int?.self, "synchronous")) ?? nil
            let changed = reached.withLock { reached -> Bool in
                let changed = reached.server != nil && reached.server != server
                if reached.server != server { reached.since = .now }
                (reached.server, reached.standby, reached.synchronous) = (server, standby, synchronous)
                return changed
            }
            if changed { changes?() }
        }
        let state = history.withLock { history -> State in
            if reachable {
                history = (0, true)
                return .ok
            }
            history.failures += 1
            return history.failures >= 2 || !history.succeeded ? .unreachable : .ok
        }
        current.withLock { $0 = state }
    }
}
