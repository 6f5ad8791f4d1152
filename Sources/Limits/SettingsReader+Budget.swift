import Basics
import Settings

extension SettingsReader {
    /// An upstream's request budget: `<prefix>_REQUESTS_PER_MINUTE`, `<prefix>_BURST` and `<prefix>_CLIENT_SHARE`
    /// (`PIER_FMI` → `PIER_FMI_REQUESTS_PER_MINUTE`, …), each defaulting to `value`'s; `rate` is the first one's meaning,
    /// `subject` what the other two speak of (`FMI forecast requests`).
    public func budget(_ prefix: String, default value: BudgetSettings, rate: String, of subject: String) throws -> BudgetSettings {
        BudgetSettings(
            ratePerMinute: try number(prefix + "_REQUESTS_PER_MINUTE", default: value.ratePerMinute, in: 0...1_000_000, meaning: rate),
            burst: try int(prefix + "_BURST", default: value.burst, in: 1...100_000, meaning: Self.burstMeaning(subject)),
            clientShare: try number(prefix + "_CLIENT_SHARE", default: value.clientShare, in: 0.001...1, meaning: Self.shareMeaning(subject)))
    }

    /// The same for upstreams whose limits are per second: `<prefix>_REQUESTS_PER_SECOND`, `<prefix>_BURST`,
    /// `<prefix>_CLIENT_SHARE`.
    public func perSecondBudget(_ prefix: String, default value: BudgetSettings, rate: String, of subject: String) throws -> BudgetSettings {
        let perSecond = try number(prefix + "_REQUESTS_PER_SECOND", default: value.ratePerMinute / 60, in: 0...1000, meaning: rate)
        return BudgetSettings(
            ratePerMinute: perSecond * 60,
            burst: try int(prefix + "_BURST", default: value.burst, in: 1...1000, meaning: Self.burstMeaning(subject)),
            clientShare: try number(prefix + "_CLIENT_SHARE", default: value.clientShare, in: 0.001...1, meaning: Self.shareMeaning(subject)))
    }

    static func burstMeaning(_ subject: String) -> String { "\(subject) allowed at once above the sustained rate (the bucket's size)" }

    static func shareMeaning(_ subject: String) -> String {
        "the part of the rate and the burst one client may spend on \(subject) nobody asked for yet; beyond it that client gets stored (stale) answers or is refused"
    }
}

extension SettingsReader {
    /// `PIER_DAILY_SHARE_SUBSCRIBER`, `PIER_DAILY_SHARE_NETWORK`, `PIER_DAILY_RESERVE`, `PIER_DAILY_SHARE_ANONYMOUS` (the
    /// pool of clients without an App Attest token, with `PIER_APP_ATTEST=prefer`): how every daily quota is split.
    public func fairShares(default value: DailyShares) throws -> DailyShares {
        let reserve = try number("PIER_DAILY_RESERVE", default: value.reserve, in: 0...0.9,
            meaning: "the part of every daily quota kept for refreshing answers more than one client asked for (`0` … `0.9`; the shares above may not exceed what is left)")
        let open = 1 - reserve
        return DailyShares(
            subscriber: try number("PIER_DAILY_SHARE_SUBSCRIBER", default: min(value.subscriber, open), in: 0.0001...open,
            meaning: "the most of any daily quota one subscriber may use: an IPv4 address, an IPv6 /64 or /56 (see [Fair shares](operations/keys-and-budgets.md#fair-shares))"),
            network: try number("PIER_DAILY_SHARE_NETWORK", default: min(value.network, open), in: 0.0001...open,
            meaning: "the most of any daily quota one network may use: an IPv4 /24, an IPv6 /48"),
            reserve: reserve,
            anonymous: try number("PIER_DAILY_SHARE_ANONYMOUS", default: min(value.anonymous, open), in: 0.0001...open,
            meaning: "with `PIER_APP_ATTEST=prefer`: the most of any daily quota every client without an App Attest token may use together (see [App Attest](operations/app-attest.md))"))
    }

    /// `PIER_BURST_WAIT_S` (how long a client a little ahead of its share waits for its turn) and
    /// `PIER_CLIENT_REQUESTS_AT_ONCE` (a client's requests past memory at once).
    public func waiting(default value: UpstreamLimits<ClientGroup>.Waiting) throws -> UpstreamLimits<ClientGroup>.Waiting {
        var waiting = value
        waiting.maxWait = try number("PIER_BURST_WAIT_S", default: value.maxWait, in: 0...10,
            meaning: "how long a request of a client a little ahead of its per-second share waits for its turn before `429` (`0` = refuse at once); at most 4 of a client's requests wait at once")
        waiting.requestsPerClient = try int("PIER_CLIENT_REQUESTS_AT_ONCE", default: value.requestsPerClient, in: 1...1000,
            meaning: "a client's requests past memory at once (reading PostgreSQL, waiting, asking the upstream), per upstream; more are refused `429` from memory — except requests that join a read or call already under way for the same answer (they cost nothing more: thirty phones behind one NAT asking for one stop are answered by one call)")
        return waiting
    }
}
