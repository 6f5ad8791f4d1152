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

    private let pool: PostgresPool
    private let timeout: Duration
    private let current = Mutex<State>(.ok)
    /// Consecutive failed pings, and whether any ping ever succeeded.
    private let history = Mutex<(failures: Int, succeeded: Bool)>((0, false))

    public init(pool: PostgresPool, timeout: Duration = .seconds(1)) {
        self.pool = pool
        self.timeout = timeout
    }

    public var state: State { current.withLock { $0 } }

    /// The condition as `/health` reports it (`database`: `ok` or `unreachable`).
    public var readiness: Readiness {
        Readiness(name: "database", states: (State.ok.rawValue, State.unreachable.rawValue)) { [self] in state == .ok }
    }

    /// Pings once and remembers the answer.
    public func check() async {
        let reachable = await pool.ping(timeout: timeout)
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
