import Feature

extension FeatureContext {
    /// An upstream as on-demand engines share it: its budget (lifted when the upstreams are recordings), its daily
    /// quota counted in PostgreSQL (none without a limit, or for recordings) and its metrics.
    public func onDemandUpstream(_ name: String, metric: String, settings: OnDemandUpstream.Settings) -> OnDemandUpstream {
        var settings = settings
        settings.budget = upstreamBudget(settings.budget)
        return OnDemandUpstream(
            name: name, metric: metric, settings: settings,
            quota: dailyQuota(upstream: metric, perDay: settings.perDay, timeZone: settings.timeZone, shares: settings.shares), metrics: metrics,
            spenders: spenders)
    }
}
