import Foundation
import UpstreamHTTP

/// One recorded exchange as the replay holds it.
public struct ReplayEntry: Sendable {
    public var exchange: UpstreamCapture.Exchange
    public var body: [UInt8]
    /// The recorded request's query.
    public var query: [String: String]
    public var receivedAt: Date

    public init(exchange: UpstreamCapture.Exchange, body: [UInt8], query: [String: String], receivedAt: Date) {
        (self.exchange, self.body, self.query, self.receivedAt) = (exchange, body, query, receivedAt)
    }

    /// The recorded answer's `Content-Type`, lower-cased.
    public var contentType: String? {
        exchange.headers.first { $0.key.lowercased() == "content-type" }?.value.lowercased()
    }
}

/// How one upstream's recordings answer requests they were not made for: which recording fits a request best,
/// and how its body is moved to now. Each upstream's lives next to its client (its feature lists it); the
/// replay knows none of them.
public protocol ReplayMatcher: Sendable {
    /// Whether a request with this path and query is this upstream's.
    func handles(path: String, query: [String: String]) -> Bool
    /// The recording that fits `query` best when none was made for exactly this query; `nil`: the first.
    func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry?
    /// The recording's body as served for `query` (`moveToNow`: the demo, its times moved to now).
    func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8]
    /// Whether this upstream's queries name a calendar day (a board's date, a day's page). The demo's recordings
    /// are of another week, so when the days overlap, the recording made for exactly the day asked is the wrong
    /// one: moved to now, ``pick(_:from:now:)`` alone decides (by distance from today).
    var queriesNameADay: Bool { get }
}

extension ReplayMatcher {
    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? { nil }
    public func body(of entry: ReplayEntry, for query: [String: String], moveToNow: Bool, now: Date) -> [UInt8] { entry.body }
    public var queriesNameADay: Bool { false }
}

extension Array where Element == ReplayEntry {
    /// The recording of `query[name]`, else the one recorded for any other value (`name=*`).
    public func recorded(for name: String, in query: [String: String]) -> ReplayEntry? {
        guard let value = query[name] else { return nil }
        return first { $0.query[name] == value } ?? first { $0.query[name] == "*" }
    }

    /// The recording of the day as far from the recordings' first day as `wanted` is from `today` (day numbers;
    /// `day` reads a recording's): last week's Tuesday answers for this week's.
    public func recorded(day wanted: Int, today: Int, _ day: (ReplayEntry) -> Int?) -> ReplayEntry? {
        let dated = compactMap { entry in day(entry).map { (entry, $0) } }
        guard let first = dated.map(\.1).min() else { return nil }
        let offset = wanted - today
        return dated.min { abs($0.1 - first - offset) < abs($1.1 - first - offset) }?.0
    }
}
