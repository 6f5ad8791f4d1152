import AnswerCaching
import Foundation
import HTTPServer
import Metrics
import Synchronization

/// `GET /v1/promo-tiles`: the imported set as the app decodes it, encoded once per set with its ETag. `404` while
/// none is imported — the app's "no tiles".
struct PromoTileRoutes: Sendable {
    static let path = "/v1/promo-tiles"

    /// The set served (`nil`: none imported), read when the answer is encoded.
    private final class Held: Sendable {
        let set = Mutex<PromoTileSet?>(nil)
    }

    private let held = Held()
    private let cache: ResponseCache

    init(maxAge: Int, metrics: MetricsRegistry?) {
        cache = ResponseCache(name: "promo_tiles", metrics: metrics) { [held] _, _ in
            Self.entry(held.set.withLock { $0 }, maxAge: maxAge)
        }
    }

    /// Serves `set` from now on (`nil`: none imported).
    func hold(_ set: PromoTileSet?) {
        held.set.withLock { $0 = set }
        cache.invalidate()
    }

    func register(in router: inout Router) {
        router.on(.get, Self.path) { [cache] request in cache.response().response(for: request) }
    }

    static func entry(_ set: PromoTileSet?, maxAge: Int) -> ResponseCache.Entry {
        let caching: HTTPHeaders = ["Cache-Control": "public, max-age=\(maxAge)"]
        guard let set else {
            return ResponseCache.Entry(response: CachedResponse(.error(.notFound, "no promo tiles", headers: caching)), validUntil: .distantFuture)
        }
        guard let body = try? JSONBody.encode(set) else {
            return ResponseCache.Entry(response: CachedResponse(.error(.internalServerError, "the promo tiles could not be encoded")), validUntil: Date())
        }
        return ResponseCache.Entry(response: CachedResponse(json: body, headers: caching), validUntil: .distantFuture)
    }
}
