import Foundation
import HTTPServer
import Synchronization

/// `GET /v1/promo-tiles`: the imported set as the app decodes it, encoded once when it is held, with its ETag. `404`
/// while none is imported — the app's "no tiles".
final class PromoTileRoutes: Sendable {
    static let path = "/v1/promo-tiles"

    private let maxAge: Int
    private let answer: Mutex<CachedResponse>

    init(maxAge: Int) {
        self.maxAge = maxAge
        answer = Mutex(Self.answer(nil, maxAge: maxAge))
    }

    /// Serves `set` from now on (`nil`: none imported).
    func hold(_ set: PromoTileSet?) {
        let ready = Self.answer(set, maxAge: maxAge)
        answer.withLock { $0 = ready }
    }

    func register(in router: inout Router) {
        router.on(.get, Self.path) { [self] request in answer.withLock { $0 }.response(for: request) }
    }

    static func answer(_ set: PromoTileSet?, maxAge: Int) -> CachedResponse {
        let caching: HTTPHeaders = ["Cache-Control": "public, max-age=\(maxAge)"]
        guard let set else { return CachedResponse(.error(.notFound, "no promo tiles", headers: caching)) }
        guard let body = try? JSONBody.encode(set) else { return CachedResponse(.error(.internalServerError, "the promo tiles could not be encoded")) }
        return CachedResponse(json: body, headers: caching)
    }
}
