import AnswerCaching
import Foundation
import HTTPServer
import Metrics

/// `GET /api/water-temp` (alias `/api/water-temperature`).
public struct LakeRoutes: Sendable {
    public static let paths = ["/api/water-temp", "/api/water-temperature"]

    /// The table's answer, encoded once and kept until the lakes change or turn stale.
    let cache: ResponseCache

    /// - Parameter maxAge: how long clients may reuse an answer (`Cache-Control: max-age`).
    public init(service: LakeService, maxAge: Int = 300, metrics: MetricsRegistry? = nil) {
        let configuration = service.configuration
        cache = ResponseCache(name: "lakes", metrics: metrics) { [service] _, now in
            Self.entry(service.snapshot, now: now, configuration: configuration, maxAge: maxAge)
        }
        service.changes.observe { [cache] in cache.invalidate() }
    }

    public func register(in router: inout Router) {
        for path in Self.paths {
            router.on(.get, path) { [cache] request in cache.response().response(for: request) }
        }
    }

    static func entry(_ snapshot: LakeSnapshot?, now: Date, configuration: LakeService.Configuration, maxAge: Int) -> ResponseCache.Entry {
        guard let snapshot else {
            return ResponseCache.Entry(
                response: CachedResponse(
                    .error(.serviceUnavailable, "no lake data yet", headers: ["Retry-After": "60", "Cache-Control": "no-store"])),
                validUntil: .distantFuture)
        }
        let response = LakesResponse(snapshot: snapshot, now: now, timeZone: configuration.timeZone, staleAfter: configuration.staleAfter)
        guard let body = try? JSONBody.encode(response) else {
            return ResponseCache.Entry(response: CachedResponse(.error(.internalServerError, "lake data could not be encoded")), validUntil: now)
        }
        let staleAt = snapshot.scrapedAt.addingTimeInterval(configuration.staleAfter.seconds)
        return ResponseCache.Entry(
            response: CachedResponse(json: body, headers: ["Cache-Control": "public, max-age=\(maxAge)"]),
            validUntil: response.debug.stale ? .distantFuture : staleAt)
    }
}
