import Foundation

/// What the departures service answers, before HTTP: the route makes a response of it once, and the service
/// keeps that in memory until a departure in it leaves or it needs refreshing.
public enum NSWDeparturesAnswer: Sendable {
    /// The app's `{"stopEvents": …}`; `lifetime`: seconds from `fetchedAt` the answer holds (until its next
    /// departure leaves or it is due for refreshing), so `max-age` and `Age` together give what is left.
    case departures(body: [UInt8], fetchedAt: Date, lifetime: Int, stale: Bool)
    /// TfNSW knows no such stop (remembered for `freshFor` seconds).
    case unknownStop(String, freshFor: Int)
    /// Nothing can be served. `clientShare`: because this client used its share of the budget (`429`).
    case unavailable(reason: String, retryAfter: Int, clientShare: Bool)
}
