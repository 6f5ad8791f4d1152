import Fetching

extension SettingsReader {
    /// An upstream's request budget: `<prefix>_REQUESTS_PER_MINUTE`, `<prefix>_BURST` and `<prefix>_CLIENT_SHARE`
    /// (`PIER_FMI` → `PIER_FMI_REQUESTS_PER_MINUTE`, …), each defaulting to `value`'s.
    public func budget<Client>(_ prefix: String, default value: RequestBudget<Client>.Settings) throws -> RequestBudget<Client>.Settings {
        RequestBudget<Client>.Settings(
            ratePerMinute: try number(prefix + "_REQUESTS_PER_MINUTE", default: value.ratePerMinute, in: 0...1_000_000),
            burst: try int(prefix + "_BURST", default: value.burst, in: 1...100_000),
            clientShare: try number(prefix + "_CLIENT_SHARE", default: value.clientShare, in: 0.001...1))
    }

    /// The same for upstreams whose limits are per second: `<prefix>_REQUESTS_PER_SECOND`, `<prefix>_BURST`,
    /// `<prefix>_CLIENT_SHARE`.
    public func perSecondBudget<Client>(_ prefix: String, default value: RequestBudget<Client>.Settings) throws -> RequestBudget<Client>.Settings {
        let perSecond = try number(prefix + "_REQUESTS_PER_SECOND", default: value.ratePerMinute / 60, in: 0...1000)
        return RequestBudget<Client>.Settings(
            ratePerMinute: perSecond * 60,
            burst: try int(prefix + "_BURST", default: value.burst, in: 1...1000),
            clientShare: try number(prefix + "_CLIENT_SHARE", default: value.clientShare, in: 0.001...1))
    }
}

extension SettingsReader {
    /// An on-demand upstream's settings: its budget (``budget(_:default:)``, or ``perSecondBudget(_:default:)`` when
    /// `perSecond`) and, when `perDay` names a variable, its daily quota (`0`: never call), each defaulting to `value`'s.
    public func upstream(_ prefix: String, perSecond: Bool, perDay: String? = nil, default value: OnDemandUpstream.Settings) throws
        -> OnDemandUpstream.Settings
    {
        var settings = value
        settings.budget = try perSecond ? perSecondBudget(prefix, default: value.budget) : budget(prefix, default: value.budget)
        if let perDay { settings.perDay = try int(perDay, default: value.perDay ?? 0, in: 0...100_000_000) }
        return settings
    }
}

extension RequestBudget.Settings {
    /// No limit worth the name: for upstreams that are recordings on loopback (``FeatureContext/upstreamsAreRecordings``).
    public static var unlimited: Self { Self(ratePerMinute: 1_000_000, burst: 100_000, clientShare: 1) }
}
