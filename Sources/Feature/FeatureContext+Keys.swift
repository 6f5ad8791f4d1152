import Foundation
import Limits

extension FeatureContext {
    /// The key to call a keyed upstream with: the configured one, or — when the upstreams are recordings — any
    /// (recordings need none); `nil`: the feature is disabled.
    public func upstreamKey(_ configured: String?) -> String? {
        configured ?? (upstreamsAreRecordings ? "demo" : nil)
    }

    /// `budget`, or no limit worth the name when the upstreams are recordings.
    public func upstreamBudget(_ budget: BudgetSettings) -> BudgetSettings {
        upstreamsAreRecordings ? .unlimited : budget
    }

    /// A key's daily quota counted in PostgreSQL; `nil` without a limit, or when the upstreams are recordings.
    public func dailyQuota(upstream: String, perDay: Int?, timeZone: TimeZone = DailyQuota.utc, shares: DailyShares = DailyShares()) -> DailyQuota? {
        guard let perDay, !upstreamsAreRecordings else { return nil }
        return DailyQuota(upstream: upstream, limit: perDay, timeZone: timeZone, shares: shares, pool: pool)
    }
}

extension BudgetSettings {
    /// No limit worth the name: for upstreams that are recordings on loopback (``FeatureContext/upstreamsAreRecordings``).
    public static var unlimited: Self { Self(ratePerMinute: 1_000_000, burst: 100_000, clientShare: 1) }
}
