import Basics
import Scheduling

/// The body of `GET /health` (contract: docs/api.md): values, encoded once (``body``) by ``OrderedJSONEncoder`` in the
/// contract's order.
public struct HealthReport: Sendable, Encodable {
    public var version: String
    public var uptimeSeconds: Int
    /// The conditions the service cannot serve without (``Readiness``: the database), each a member in this order.
    public var conditions: [Condition]
    /// Every fetched source in a fixed order.
    public var sources: [SourceStatus]
    /// This process's part in fetching: `leader` (runs the fetches), `standby` (another replica does), `off`.
    public var fetcher: String?
    /// More members for a source's object, by source name (e.g. the weather forecast budget).
    public var details: [String: MergedObject]
    /// `live`, or `demo` when serving the bundled recordings (`pier serve --demo`).
    public var mode: String
    /// More top-level members, a value by name, written in name order: a feature's state that is no source's (App
    /// Attest's).
    public var members: [String: any Encodable & Sendable]

    public init(
        version: String, uptimeSeconds: Int, conditions: [Condition] = [], sources: [SourceStatus] = [], fetcher: String? = nil,
        details: [String: MergedObject] = [:], mode: String = "live", members: [String: any Encodable & Sendable] = [:]
    ) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.conditions = conditions
        self.sources = sources
        self.fetcher = fetcher
        self.details = details
        self.mode = mode
        self.members = members
    }

    /// A ``Readiness``'s state as the report says it.
    public struct Condition: Sendable, Equatable {
        public let name: String
        public let state: String
        public let ready: Bool

        public init(name: String, state: String, ready: Bool) {
            self.name = name
            self.state = state
            self.ready = ready
        }
    }

    /// `200` while the service can serve, `503` while a condition is not ready (PostgreSQL cannot be reached). A
    /// failing source does not make the service unhealthy: it keeps serving the last good data, and says so under
    /// `sources`.
    public var canServe: Bool { conditions.allSatisfy(\.ready) }

    public var status: String { canServe ? "ok" : "unavailable" }

    /// The JSON body. Encoding fails only for a member that throws from its own `encode(to:)`: none does; should one,
    /// `/health` still answers, with the status and the failure named.
    public var body: [UInt8] {
        (try? OrderedJSONEncoder.encode(self)) ?? (try? OrderedJSONEncoder.encode(Unencodable(status: status))) ?? []
    }

    private struct Unencodable: Encodable {
        let status: String
        let error = "the health report could not be encoded"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        try container.encode(status, forKey: "status")
        try container.encode(version, forKey: "version")
        try container.encode(uptimeSeconds, forKey: "uptime_s")
        for condition in conditions { try container.encode(condition.state, forKey: Name(condition.name)) }
        try container.encode(mode, forKey: "mode")
        try container.encode(OrderedObject(sources.map { ($0.source, MergedObject([$0, details[$0.source]])) }), forKey: "sources")
        if let fetcher { try container.encode(fetcher, forKey: "fetcher") }
        for (name, value) in members.sorted(by: { $0.key < $1.key }) { try container.encode(value, forKey: Name(name)) }
    }

    /// The report's member names: the contract's, then the features' own.
    struct Name: CodingKey, ExpressibleByStringLiteral {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringLiteral name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
