import Basics
import Feature
import Foundation
import METNorwayFormat
import OnDemand
import Scheduling
import UpstreamHTTP

/// MET Norway's Locationforecast per point as the ``OnDemandCore`` asks for it, within MET's terms: fresh until MET's
/// `Expires`; asked again only after it, conditionally (`If-Modified-Since` from the copy held: a `304` keeps the copy
/// with the new `Expires`); `429` pauses every call for its `Retry-After` (a minute without one); `403` — MET's answer
/// to a terms violation or missing identification — pauses them an hour. Kept in the shared answer store (``METNorwayStore``).
struct METNorwaySource: OnDemandValueSource {
    static let pauseAfterRefusal: Double = 3600
    static let pauseAfterThrottling = 60

    let client: METNorwayClient
    let store: METNorwayStore

    func stored(_ point: METNorwayPoint) async throws -> OnDemandStored<METNorwayHeld>? {
        guard let held = try await store.held(point) else { return nil }
        return OnDemandStored(held, fetchedAt: held.fetchedAt)
    }

    func store(_ held: METNorwayHeld, for point: METNorwayPoint, fetchedAt: Date) async throws {
        try await store.store(held, for: point, now: fetchedAt)
    }

    /// MET stands in for another upstream: the feature's own source has the history.
    func lastFetch() async throws -> Date? { nil }

    /// One request for the point, unconditional (the engine asks ``fetch(_:previous:)``).
    func fetch(_ point: METNorwayPoint) async throws -> UpstreamReply<METNorwayHeld> {
        try await fetch(point, previous: nil)
    }

    /// One request for the point, conditional on the copy the engine holds (memory's or PostgreSQL's).
    func fetch(_ point: METNorwayPoint, previous held: METNorwayHeld?) async throws -> UpstreamReply<METNorwayHeld> {
        let now = Date()
        do {
            switch try await client.forecast(latitude: point.latitude, longitude: point.longitude, lastModified: held?.lastModified, now: now) {
            case let .forecast(forecast, expires, lastModified):
                guard !forecast.steps.isEmpty else { throw METNorwayError.empty }
                return .answer(METNorwayHeld(forecast: forecast, fetchedAt: now, expires: expires, lastModified: lastModified))
            case let .notModified(expires):
                guard var kept = held else { throw METNorwayError.unreadable("304 without a copy held") }
                kept.expires = expires
                return .answer(kept)
            }
        } catch METNorwayError.throttled(let retryAfter) {
            return .throttled(
                message: "MET Norway is rate-limiting this server", detail: "\(METNorwayError.throttled(retryAfter: retryAfter))",
                retryAfter: retryAfter ?? Self.pauseAfterThrottling)
        } catch METNorwayError.refused {
            return .refused(
                message: "MET Norway refused this server's requests", detail: "\(METNorwayError.refused) — check PIER_CONTACT and MET's terms of service",
                pause: Self.pauseAfterRefusal)
        }
    }

    func lifetime(of held: METNorwayHeld, for point: METNorwayPoint, now: Date) -> TimeInterval { held.expires.timeIntervalSince(held.fetchedAt) }

    /// MET's `Expires`, whatever the copy's age: a `304` confirms an old copy until a new date.
    func freshUntil(_ held: METNorwayHeld, fetchedAt: Date, for point: METNorwayPoint, now: Date) -> Date { held.expires }

    func cost(of held: METNorwayHeld) -> Int { held.byteCount }
}
