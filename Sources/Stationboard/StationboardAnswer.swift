/// What the stationboard service has for a request, in domain terms; the route turns it into HTTP
/// (``StationboardRoutes/prepare(_:)``), once per answer, and the service keeps that in memory.
public enum StationboardAnswer: Sendable {
    /// The upstream's board with the ship of each course: its bytes, how many seconds they stay fresh, and
    /// whether they are the last good ones served because the upstream could not be asked (`stale`).
    case board(body: [UInt8], freshFor: Int, stale: Bool)
    /// The upstream knows no such station (remembered for `freshFor` seconds).
    case unknownStation(String, freshFor: Int)
    /// Nothing stored for the request and the upstream cannot be asked now. `clientShare`: because this client
    /// used its share of the budget (`429`), not because the upstream or the shared budget failed (`503`).
    case unavailable(reason: String, retryAfter: Int, clientShare: Bool)
}
