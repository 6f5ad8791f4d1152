import HTTPServer
import Parsing
import Scheduling

/// The body of `GET /health` (contract: docs/api.md).
public struct HealthReport: Sendable, Equatable {
    public var version: String
    public var uptimeSeconds: Int
    public var database: DatabaseMonitor.State
    /// Every fetched source in a fixed order.
    public var sources: [SourceStatus]
    /// This process's part in fetching: `leader` (runs the fetches), `standby` (another replica does), `off`.
    public var fetcher: String?
    /// More JSON members for a source's object, by source name (e.g. the weather forecast budget).
    public var details: [String: String]
    /// `live`, or `demo` when serving the bundled recordings (`pier serve --demo`).
    public var mode: String
    /// More top-level members (a name and its JSON value): a feature's state that is no source's (App Attest's).
    public var members: [String: String]

    public init(
        version: String, uptimeSeconds: Int, database: DatabaseMonitor.State, sources: [SourceStatus] = [], fetcher: String? = nil,
        details: [String: String] = [:], mode: String = "live", members: [String: String] = [:]
    ) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.database = database
        self.sources = sources
        self.fetcher = fetcher
        self.details = details
        self.mode = mode
        self.members = members
    }

    /// `200` while the service can serve, `503` when PostgreSQL cannot be reached. A failing source does not
    /// make the service unhealthy: it keeps serving the last good data, and says so under `sources`.
    public var canServe: Bool { database == .ok }

    public var status: String { canServe ? "ok" : "unavailable" }

    /// JSON with the contract's key names. Hand-written because it is small and on a hot path.
    public var json: String {
        let sources = sources.map { source in
            "\(JSONString.quote(source.source)):{\"status\":\"\(source.state.rawValue)\","
                + "\"last_success\":\(source.lastSuccess.map { JSONString.quote(Timestamp.iso8601($0)) } ?? "null"),"
                + "\"age_s\":\(source.ageSeconds.map(String.init) ?? "null"),"
                + "\"last_error\":\(source.lastError.map(JSONString.quote) ?? "null"),"
                + "\"last_outcome\":\(source.lastOutcome.map { "\"\($0.rawValue)\"" } ?? "null")"
                + (details[source.source].flatMap { $0.isEmpty ? nil : ",\($0)" } ?? "") + "}"
        }
        return "{\"status\":\"\(status)\",\"version\":\"\(version)\",\"uptime_s\":\(uptimeSeconds),"
            + "\"database\":\"\(database.rawValue)\",\"mode\":\"\(mode)\",\"sources\":{\(sources.joined(separator: ","))}"
            + (fetcher.map { ",\"fetcher\":\(JSONString.quote($0))" } ?? "")
            + members.sorted { $0.key < $1.key }.map { ",\(JSONString.quote($0.key)):\($0.value)" }.joined() + "}"
    }
}
