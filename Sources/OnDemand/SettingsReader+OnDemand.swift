import Feature
import Settings

extension SettingsReader {
    /// An on-demand upstream's settings: its budget (``budget(_:default:)``, or ``perSecondBudget(_:default:)`` when
    /// `perSecond`) and, when `perDay` names a variable, its daily quota (`0`: never call), each defaulting to `value`'s;
    /// the fair shares every upstream shares (``fairShares(default:)``, ``waiting(default:)``).
    public func upstream(_ prefix: String, perSecond: Bool, perDay: String? = nil, default value: OnDemandUpstream.Settings) throws
        -> OnDemandUpstream.Settings
    {
        var settings = value
        settings.budget = try perSecond ? perSecondBudget(prefix, default: value.budget) : budget(prefix, default: value.budget)
        if let perDay { settings.perDay = try int(perDay, default: value.perDay ?? 0, in: 0...100_000_000) }
        settings.shares = try fairShares(default: value.shares)
        settings.waiting = try waiting(default: value.waiting)
        return settings
    }
}
