import Feature
import Foundation
import METNorway
import UpstreamHTTP

/// MET Norway's Locationforecast per grid cell as the ``OnDemandCore`` asks for it, within MET's terms: fresh until
/// MET's `Expires`; asked again only after it, conditionally (`If-Modified-Since` from the copy held: a `304` keeps the
/// copy with the new `Expires`); `429` pauses every call for its `Retry-After` (a minute without one); `403` — MET's
/// answer to a terms violation or missing identification — pauses them an hour. Kept in `metno_forecasts` and in
/// ``WeatherMemory``.
struct METNorwaySource: OnDemandValueSource {
    static let pauseAfterRefusal: Double = 3600
    static let pauseAfterThrottling = 60

    let client: METNorwayClient
    let store: METNorwayStore
    let memory: WeatherMemory

    func stored(_ cell: GridCell) async throws -> OnDemandStored<METNorwayHeld>? {
        guard let held = try await store.held(cell) else { return nil }
        memory.remember(held)
        return OnDemandStored(held, fetchedAt: held.forecast.fetchedAt)
    }

    func store(_ held: METNorwayHeld, for cell: GridCell, fetchedAt: Date) async throws {
        memory.remember(held)
        try await store.store(held, now: fetchedAt)
    }

    /// MET stands in for FMI: the `weather` source's history is the observations'.
    func lastFetch() async throws -> Date? { nil }

    /// One request for the cell's centre, conditional on the copy held.
    func fetch(_ cell: GridCell) async throws -> UpstreamReply<METNorwayHeld> {
        let held = memory.metNorway(cell)
        let now = Date()
        do {
            switch try await client.forecast(latitude: cell.latitude, longitude: cell.longitude, lastModified: held?.lastModified, now: now) {
            case let .forecast(forecast, expires, lastModified):
                let hours = Forecast(cell: cell, fetchedAt: now, metNorway: forecast)
                guard !hours.series.isEmpty else { throw METNorwayError.empty }
                return .answer(METNorwayHeld(forecast: hours, expires: expires, lastModified: lastModified))
            case let .notModified(expires):
                guard var kept = held else { throw METNorwayError.unreadable("304 without a copy held") }
                kept.expires = expires
                return .answer(kept)
            }
        } catch METNorwayError.throttled(let retryAfter) {
            return .throttled(message: "MET Norway is rate-limiting this server", detail: "\(METNorwayError.throttled(retryAfter: retryAfter))", retryAfter: retryAfter ?? Self.pauseAfterThrottling)
        } catch METNorwayError.refused {
            return .refused(
                message: "MET Norway refused this server's requests", detail: "\(METNorwayError.refused) — check PIER_CONTACT and MET's terms of service",
                pause: Self.pauseAfterRefusal)
        }
    }

    func lifetime(of held: METNorwayHeld, for cell: GridCell, now: Date) -> TimeInterval { held.expires.timeIntervalSince(held.forecast.fetchedAt) }

    /// MET's `Expires`, whatever the copy's age: a `304` confirms an old copy until a new date.
    func freshUntil(_ held: METNorwayHeld, fetchedAt: Date, for cell: GridCell, now: Date) -> Date { held.expires }

    func cost(of held: METNorwayHeld) -> Int { held.forecast.byteCount + (held.lastModified?.utf8.count ?? 0) + 48 }

    /// The state only: an upstream error's URL would name the point.
    func state(of error: any Error) -> String { (error as? UpstreamError)?.state ?? "\(error)" }
}
