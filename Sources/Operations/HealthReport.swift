/// The body of `GET /health` (contract: `../shared/CONTRACTS.md`).
public struct HealthReport: Sendable, Equatable {
    public var status: String
    public var version: String
    public var uptimeSeconds: Int

    public init(status: String, version: String, uptimeSeconds: Int) {
        self.status = status
        self.version = version
        self.uptimeSeconds = uptimeSeconds
    }

    /// JSON with the contract's key names. Hand-written because it is tiny and on a hot path.
    public var json: String {
        "{\"status\":\"\(status)\",\"version\":\"\(version)\",\"uptime_s\":\(uptimeSeconds),\"sources\":{}}"
    }
}
