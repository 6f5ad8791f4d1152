/// What the lake-weather service answers, before HTTP: the route makes a response of it once, and the
/// service keeps that in memory.
public enum LakeWeatherAnswer: Sendable {
    /// The rendered forecast; `freshFor` seconds left of its freshness; `stale` when it is older than that.
    case forecast(body: [UInt8], freshFor: Int, stale: Bool)
    /// Nothing can be served. `clientShare`: because this client used its share of the budget (`429`), not
    /// because the upstream or the shared budget failed (`503`).
    case unavailable(reason: String, retryAfter: Int, clientShare: Bool)
}
