import Feature
import Fetching
import HTTPServer

/// Cached drop-ins for the app's two Wikipedia calls: `GET /v1/wikipedia/{lang}/summary/{title}` for
/// `https://{lang}.wikipedia.org/api/rest_v1/page/summary/{title}` and `GET /v1/wikipedia/{lang}/opensearch`
/// for `…/w/api.php?action=opensearch…` — Wikipedia's JSON unchanged.
public struct WikipediaRoutes: Sendable {
    public static let summaryPath = "/v1/wikipedia/{lang}/summary/{title}"
    public static let searchPath = "/v1/wikipedia/{lang}/opensearch"

    private let service: WikipediaService<CachedResponse>
    private let clients: ClientAddress
    private let summaryTemplate = PathTemplate(WikipediaRoutes.summaryPath)
    private let searchTemplate = PathTemplate(WikipediaRoutes.searchPath)

    public init(service: WikipediaService<CachedResponse>, clients: ClientAddress = ClientAddress()) {
        self.service = service
        self.clients = clients
    }

    public func register(in router: inout Router) {
        router.hybrid(.get, Self.summaryPath) { [service, clients, summaryTemplate] request in
            guard let values = summaryTemplate.match(request.path), let lang = values["lang"], let title = values["title"] else {
                throw HTTPError(.notFound, "no such path")
            }
            let key = try SummaryKey(lang: lang, title: title)
            if let cached = service.summaries.cachedResponse(for: key) { return .response(cached.response(for: request)) }
            return .later { await service.summaries.response(for: key, client: clients.client(of: request)).response(for: request) }
        }
        router.hybrid(.get, Self.searchPath) { [service, clients, searchTemplate] request in
            guard let lang = searchTemplate.match(request.path)?["lang"] else { throw HTTPError(.notFound, "no such path") }
            let key = try OpenSearchKey(lang: lang, query: request.query)
            if let cached = service.searches.cachedResponse(for: key) { return .response(cached.response(for: request)) }
            return .later { await service.searches.response(for: key, client: clients.client(of: request)).response(for: request) }
        }
    }

    /// A summary as Wikipedia wrote it; a title it does not have is `404` — Pier's `{"error": …}` with
    /// Wikipedia's problem `type` kept (clients test it) — remembered a day.
    @Sendable public static func renderSummary(_ answer: SharedAnswer) -> CachedResponse {
        if case .answer(let stored, let freshFor, _) = answer, stored.status == 404 {
            let type = (try? JSONScanner.parse(stored.body))?["type"]?.string ?? "https://mediawiki.org/wiki/HyperSwitch/errors/not_found"
            let body = "{\"error\":\"Wikipedia has no page with this title\",\"type\":\(JSONString.quote(type))}"
            return CachedResponse(.json(Array(body.utf8), status: .notFound, headers: ["Cache-Control": "public, max-age=\(freshFor)"]))
        }
        return answer.response(source: WikipediaService<CachedResponse>.source)
    }

    /// Wikipedia's JSON (see ``SharedAnswer/response(source:)``: `X-Pier-Stale: wikipedia` when stale).
    @Sendable public static func renderSearch(_ answer: SharedAnswer) -> CachedResponse {
        answer.response(source: WikipediaService<CachedResponse>.source)
    }
}
