import Basics
import Feature
import Foundation
import HTTPServer
import Identity
import Limits
import Metrics
import OnDemand
import Postgres
import Scheduling

/// Place names for `/v1/weather?place=Kumpula`, resolved by FMI itself: its WFS takes `place=` in any point query and
/// answers the place's official name and position with a forecast for it (which is kept for the place's grid cell,
/// so resolving costs no second call). A resolution — a place or "no such place" — is remembered a day, in memory
/// and in PostgreSQL (every replica): the ``OnDemandCore`` with ``FMIPlaceSource``, on FMI's budget (shared with the
/// forecasts) and the asking client's share.
public final class PlaceResolver: Sendable {
    public struct Place: Sendable, Equatable {
        public var name: String
        public var latitude: Double
        public var longitude: Double

        /// `{"lat":…,"lon":…,"name":…}` (sorted keys; the coordinates as Swift describes them, `60.0`, as they always came).
        func write(to json: inout JSONWriter) {
            json.object { json in
                json.key("lat")
                json.number(described: latitude)
                json.key("lon")
                json.number(described: longitude)
                json.member("name", name)
            }
        }
    }

    public enum Resolution: Sendable, Equatable {
        case found(Place)
        /// FMI knows no place by that name.
        case unknown
    }

    /// How long a resolution is remembered.
    static let lifetime: TimeInterval = 86_400

    private let core: OnDemandCore<FMIPlaceSource>
    /// Who a request asking for a place's name counts as (asked only when FMI would be).
    let spenders: Spenders

    public init(client: FMIClient, pool: PostgresPool, forecasts: ForecastService, spenders: Spenders = Spenders(), metrics: MetricsRegistry? = nil) {
        self.spenders = spenders
        core = OnDemandCore(
            kind: "fmi-place", source: FMIPlaceSource(client: client, pool: pool, forecasts: forecasts), upstream: forecasts.upstream,
            report: forecasts.report, settings: OnDemandSettings(cacheBytes: 1 << 20), metrics: metrics)
    }

    /// The name as remembered: trimmed, inner whitespace one space, lower case.
    static func key(_ name: String) -> String {
        QueryText.collapsed(name, lowered: true)
    }

    /// The resolution memory holds for `name`, if it still holds.
    public func cached(_ name: String, now: Date = Date()) -> Resolution? {
        guard let held = core.held(FMIPlaceSource.Query(name), now: now), !held.stale else { return nil }
        core.countHit()
        return held.value
    }

    /// Memory, PostgreSQL, then FMI (one call per name at a time, on the FMI budget and `client`'s share).
    public func resolve(_ name: String, client: Spender?, now: Date = Date()) async throws -> Resolution {
        if let cached = cached(name, now: now) { return cached }
        let key = FMIPlaceSource.Query(name)
        switch await core.outcome(for: key, client: client, now: now) {
        case .answer(let answer): return answer.value
        case .unavailable(let why): throw why.saying("the place could not be looked up yet")
        }
    }
}
