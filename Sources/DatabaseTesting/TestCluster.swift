import Foundation

/// The PostgreSQL cluster `scripts/test` started (PIER_PG_CLUSTER_DIR / PIER_PG_BINDIR name it), stopped and
/// started again by tests of outages.
public enum TestCluster {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `pg_ctl -D <cluster> -w <arguments>`; throws when the variables are missing or pg_ctl fails.
    public static func pgctl(_ arguments: [String]) throws {
        let environment = ProcessInfo.processInfo.environment
        guard let directory = environment["PIER_PG_CLUSTER_DIR"], let bin = environment["PIER_PG_BINDIR"] else {
            throw Failure(description: "PIER_PG_CLUSTER_DIR/PIER_PG_BINDIR are not set: run through scripts/test, which starts the cluster")
        }
        // PostgreSQL refuses to run as root; scripts/test runs the cluster as `postgres` then.
        // system(3), not Process: Foundation's Process did not reap `pg_ctl start` (its daemon keeps running).
        let prefix = getuid() == 0 ? "runuser -u postgres -- " : ""
        let command = prefix + "'\(bin)/pg_ctl' -D '\(directory)' -w " + arguments.joined(separator: " ") + " >/dev/null 2>&1"
        let status = system(command)
        guard status == 0 else { throw Failure(description: "\(command) exited \(status)") }
    }

    /// Stops the cluster at once (fast shutdown: sessions are ended).
    public static func stop() throws { try pgctl(["-m", "fast", "stop"]) }

    /// Starts it again as it was configured.
    public static func start() throws { try pgctl(["-l", "/dev/null", "start"]) }
}
