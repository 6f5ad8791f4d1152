/// The body of `GET /health` (contract: `../shared/CONTRACTS.md`).
public struct HealthReport: Sendable, Equatable {
    public var version: String
    public var uptimeSeconds: Int
    public var database: DatabaseMonitor.State

    public init(version: String, uptimeSeconds: Int, database: DatabaseMonitor.State) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.database = database
    }

    /// `200` while the service can serve, `503` when PostgreSQL cannot be reached.
    public var canServe: Bool { database == .ok }

    public var status: String { canServe ? "ok" : "unavailable" }

    /// JSON with the contract's key names. Hand-written because it is tiny and on a hot path.
    public var json: String {
        "{\"status\":\"\(status)\",\"version\":\"\(version)\",\"uptime_s\":\(uptimeSeconds),"
            + "\"database\":\"\(database.rawValue)\",\"sources\":{}}"
    }
}
