import Basics
import Settings

extension SettingsReader {
    /// An upstream's request budget: `<prefix>_REQUESTS_PER_MINUTE`, `<prefix>_BURST` and `<prefix>_CLIENT_SHARE`
    /// (`PIER_FMI` → `PIER_FMI_REQUESTS_PER_MINUTE`, …), each defaulting to `value`'s.
    public func budget(_ prefix: String, default value: BudgetSettings) throws -> BudgetSettings {
        BudgetSettings(
            ratePerMinute: try number(prefix + "_REQUESTS_PER_MINUTE", default: value.ratePerMinute, in: 0...1_000_000),
            burst: try int(prefix + "_BURST", default: value.burst, in: 1...100_000),
            clientShare: try number(prefix + "_CLIENT_SHARE", default: value.clientShare, in: 0.001...1))
    }

    /// The same for upstreams whose limits are per second: `<prefix>_REQUESTS_PER_SECOND`, `<prefix>_BURST`,
    /// `<prefix>_CLIENT_SHARE`.
    public func perSecondBudget(_ prefix: String, default value: BudgetSettings) throws -> BudgetSettings {
        let perSecond = try number(prefix + "_REQUESTS_PER_SECOND", default: value.ratePerMinute / 60, in: 0...1000)
        return BudgetSettings(
            ratePerMinute: perSecond * 60,
            burst: try int(prefix + "_BURST", default: value.burst, in: 1...1000),
            clientShare: try number(prefix + "_CLIENT_SHARE", default: value.clientShare, in: 0.001...1))
    }
}

extension SettingsReader {
    /// `PIER_DAILY_SHARE_SUBSCRIBER`, `PIER_DAILY_SHARE_NETWORK`, `PIER_DAILY_RESERVE`, `PIER_DAILY_SHARE_ANONYMOUS` (the
    /// pool of clients without an App Attest token, with `PIER_APP_ATTEST=prefer`): how every daily quota is split.
    public func fairShares(default value: DailyShares) throws -> DailyShares {
        let reserve = try number("PIER_DAILY_RESERVE", default: value.reserve, in: 0...0.9)
        let open = 1 - reserve
        return DailyShares(
            subscriber: try number("PIER_DAILY_SHARE_SUBSCRIBER", default: min(value.subscriber, open), in: 0.0001...open),
            network: try number("PIER_DAILY_SHARE_NETWORK", default: min(value.network, open), in: 0.0001...open),
            reserve: reserve,
            anonymous: try number("PIER_DAILY_SHARE_ANONYMOUS", default: min(value.anonymous, open), in: 0.0001...open))
    }

    /// `PIER_BURST_WAIT_S` (how long a client a little ahead of its share waits for its turn) and
    /// `PIER_CLIENT_REQUESTS_AT_ONCE` (a client's requests past memory at once).
    public func waiting(default value: UpstreamLimits<ClientGroup>.Waiting) throws -> UpstreamLimits<ClientGroup>.Waiting {
        var waiting = value
        waiting.maxWait = try number("PIER_BURST_WAIT_S", default: value.maxWait, in: 0...10)
        waiting.requestsPerClient = try int("PIER_CLIENT_REQUESTS_AT_ONCE", default: value.requestsPerClient, in: 1...1000)
        return waiting
    }
}
