import Basics
import Limits

/// What an on-demand upstream shows in its source's `/health` object (``UpstreamReport/health(limits:quota:withQuota:)``).
public struct UpstreamHealth: Sendable, Encodable {
    /// `reachable`, `unreachable`, or `unknown` before the first call.
    public var upstream: String
    public var pausedSeconds: Int
    public var budget: RequestBudget<ClientGroup>.Snapshot
    /// `.none`: the upstream has no daily quota (no member); `.some(nil)`: one not known yet (`null`).
    public var quota: DailyQuota.Snapshot??

    enum CodingKeys: String, CodingKey {
        case upstream, pausedSeconds = "paused_s", budget, quota
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(upstream, forKey: .upstream)
        try container.encode(pausedSeconds, forKey: .pausedSeconds)
        try container.encode(budget, forKey: .budget)
        if case .some(let quota) = quota { try container.encodeIfPresent(quota, forKey: .quota) }
    }
}
