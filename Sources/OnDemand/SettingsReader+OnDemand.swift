import Feature
import Settings

extension SettingsReader {
    /// An on-demand upstream's settings: its budget (``budget(_:default:)``, or ``perSecondBudget(_:default:)`` when
    /// `perSecond`) and, when `perDay` names a variable, its daily quota (`0`: never call), each defaulting to `value`'s;
    /// the fair shares every upstream shares (``fairShares(default:)``, ``waiting(default:)``).
    /// `rate` is the rate's meaning, `subject` what the burst and the share speak of, `quota` the daily quota's meaning.
    public func upstream(
        _ prefix: String, perSecond: Bool, rate: String, of subject: String, perDay: (name: String, meaning: String)? = nil,
        default value: OnDemandUpstream.Settings
    ) throws -> OnDemandUpstream.Settings {
        var settings = value
        settings.budget = try perSecond
            ? perSecondBudget(prefix, default: value.budget, rate: rate, of: subject) : budget(prefix, default: value.budget, rate: rate, of: subject)
        if let perDay { settings.perDay = try int(perDay.name, default: value.perDay ?? 0, in: 0...100_000_000, meaning: perDay.meaning) }
        settings.shares = try fairShares(default: value.shares)
        settings.waiting = try waiting(default: value.waiting)
        return settings
    }
}
