import Basics
import DatabaseTesting
import Feature
import Foundation
import HTTPServer
import OnDemand
import Postgres
import Scheduling
import SharedAnswers
import UpstreamHTTP
import UpstreamTesting
@testable import Wikipedia
import XCTest


/// The service against real PostgreSQL and a local Wikipedia serving the fixtures.
final class WikipediaServiceTests: ServiceTestCase {    let clock = SharedValue<Double>(1000)

    typealias Service = WikipediaService

    func service(contact: String? = "https://pier.example.org; ops@example.org", _ configure: (inout Service.Settings) -> Void = { _ in }) -> Service {
        var settings = Service.Settings()
        configure(&settings)
        let clock = clock
        return Service(
            client: WikipediaClient(
                baseURL: upstream.wikipediaURL, client: UpstreamClient(configuration: .init(timeout: .seconds(5))), product: "Pier/0.1.0",
                contact: contact, ttl: (settings.summaryTTL, settings.missingTTL, settings.searchTTL)),
            store: SharedAnswerStore(pool: pool),
            upstream: OnDemandUpstream(name: "Wikipedia", metric: "wikipedia", settings: settings.upstream, quota: nil, clock: { clock.value }, metrics: nil),
            settings: settings)
    }

    func summary(_ title: String, lang: String = "de") throws -> SummaryKey {
        try SummaryKey(lang: lang, title: title)
    }

    func testASummaryIsWikipediasJSONOnceForEveryoneWithPiersUserAgent() async throws {
        let service = service()
        let response = await service.summaries.response(for: try summary("Kaiserburg Nürnberg"), client: nil)
        XCTAssertEqual(response.response.status, .ok)
        XCTAssertEqual(response.response.body, try Fixtures.bytes("wikipedia", "summary-Kaiserburg_Nuernberg.json"), "passed on unchanged")
        let app = try JSONDecoder().decode(AppWikipediaSummary.self, from: Data(response.response.body))
        XCTAssertNotNil(app.extract)
        XCTAssertNotNil(app.content_urls?.desktop?.page)
        let asked = try XCTUnwrap(upstream.requests(.wikipedia).first)
        XCTAssertEqual(asked.path, "/wiki/de/api/rest_v1/page/summary/Kaiserburg_Nürnberg", "spaces become underscores before asking")
        XCTAssertEqual(asked.headers["user-agent"], "Pier/0.1.0 (https://pier.example.org; ops@example.org)")
        // The app's %20 form, the underscore form, and a restart: no further call.
        _ = await service.summaries.response(for: try summary("Kaiserburg_Nürnberg"), client: nil)
        let restarted = self.service()
        try await restarted.load()
        let again = await restarted.summaries.response(for: try summary(" Kaiserburg  Nürnberg "), client: nil)
        XCTAssertEqual(again.response.body, response.response.body)
        XCTAssertEqual(upstream.requests(.wikipedia).count, 1)
        let restartedHealth = try OrderedJSONEncoder.string(restarted.health())
        XCTAssertTrue(restartedHealth.contains(#""stored":1"#), restartedHealth)
    }

    func testWithoutAContactTheUserAgentIsTheNameAndVersion() async throws {
        let service = service(contact: nil)
        _ = await service.summaries.response(for: try summary("Schöner Brunnen"), client: nil)
        XCTAssertEqual(upstream.requests(.wikipedia).first?.headers["user-agent"], "Pier/0.1.0")
        XCTAssertEqual(UserAgent.identifying(product: "Pier/1", contact: "a\r\nX-Evil: 1"), "Pier/1 (aX-Evil: 1)", "no header injection")
    }

    func testARedirectIsFollowedAndAnUnknownTitleIsA404RememberedADay() async throws {
        let service = service()
        let redirected = await service.summaries.response(for: try summary(FixtureUpstream.wikipediaRedirect), client: nil)
        XCTAssertEqual(redirected.response.status, .ok)
        XCTAssertEqual(try JSONDecoder().decode(AppWikipediaSummary.self, from: Data(redirected.response.body)).title, "Kaiserburg Nürnberg")
        let missing = await service.summaries.response(for: try summary("Gibt_es_nicht"), client: nil)
        XCTAssertEqual(missing.response.status, .notFound)
        let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(missing.response.body)) as? [String: String])
        XCTAssertEqual(body["type"], "https://mediawiki.org/wiki/HyperSwitch/errors/not_found")
        XCTAssertNotNil(body["error"])
        let maxAge = try XCTUnwrap(missing.response.headers["cache-control"]).replacingOccurrences(of: "public, max-age=", with: "")
        XCTAssertGreaterThan(try XCTUnwrap(Int(maxAge)), 86_000)
        // schemathesis' find: a title starting with an emoji modifier (one Character with the slash before it).
        let modified = await service.summaries.response(for: try summary("\u{1F3FB}p\u{10CE72}\u{0104}\u{E00CF}R", lang: "hrla"), client: nil)
        XCTAssertEqual(modified.response.status, .notFound, String(decoding: modified.response.body, as: UTF8.self))
        let calls = upstream.requests(.wikipedia).count
        let restarted = self.service()
        let again = await restarted.summaries.response(for: try summary("Gibt es nicht"), client: nil)
        XCTAssertEqual(again.response.status, .notFound)
        XCTAssertEqual(upstream.requests(.wikipedia).count, calls, "remembered in PostgreSQL")
    }

    func testOpenSearchIsCachedPerLanguageSearchAndLimit() async throws {
        let service = service()
        let query = try XCTUnwrap(QueryParameters(raw: "action=opensearch&search=Sch%C3%B6ner%20Brunnen%20N%C3%BCrnberg&limit=5&namespace=0&format=json"))
        let key = try OpenSearchKey(lang: "de", query: query)
        let response = await service.searches.response(for: key, client: nil)
        XCTAssertEqual(response.response.body, try Fixtures.bytes("wikipedia", "opensearch-Schoener_Brunnen_Nuernberg.json"))
        let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.response.body)) as? [Any])
        XCTAssertEqual(array.count, 4, "the app gives up on anything but four elements")
        let asked = try XCTUnwrap(upstream.requests(.wikipedia).first)
        XCTAssertEqual(asked.path, "/wiki/de/w/api.php")
        XCTAssertEqual(asked.query["search"], "Schöner Brunnen Nürnberg")
        XCTAssertEqual(asked.query["limit"], "5")
        _ = await service.searches.response(for: key, client: nil)
        XCTAssertEqual(upstream.requests(.wikipedia).count, 1)
        let other = try OpenSearchKey(lang: "de", query: try XCTUnwrap(QueryParameters(raw: "search=Sch%C3%B6ner%20Brunnen%20N%C3%BCrnberg&limit=6")))
        _ = await service.searches.response(for: other, client: nil)
        XCTAssertEqual(upstream.requests(.wikipedia).count, 2)
    }

    func testFailuresServeStaleElse503AndGarbageIsNotStored() async throws {
        let service = service {
            $0.summaryTTL = .milliseconds(1)
            $0.upstream.budget = .init(ratePerMinute: 6000, burst: 100, clientShare: 1)
        }
        _ = await service.summaries.response(for: try summary("Schöner_Brunnen"), client: nil)
        try await Task.sleep(for: .milliseconds(20))
        upstream.set(.wikipedia, .status(500))
        let stale = await service.summaries.response(for: try summary("Schöner_Brunnen"), client: nil)
        XCTAssertEqual(stale.response.status, .ok)
        XCTAssertEqual(stale.response.headers["x-pier-stale"], "wikipedia")
        let none = await service.summaries.response(for: try summary("Kaiserburg_Nürnberg"), client: nil)
        XCTAssertEqual(none.response.status, .serviceUnavailable)
        XCTAssertNotNil(none.response.headers["retry-after"])
        upstream.set(.wikipedia, .json(Array(#"{"no":"title"}"#.utf8)))
        let garbage = await service.summaries.response(for: try summary("Frauenkirche"), client: nil)
        XCTAssertEqual(garbage.response.status, .serviceUnavailable)
        upstream.set(.wikipedia, .json(Array(#"["a",["b"],["c"]]"#.utf8)))
        let search = try OpenSearchKey(lang: "de", query: try XCTUnwrap(QueryParameters(raw: "search=x")))
        let answer1 = await service.searches.response(for: search, client: nil).response.status
        XCTAssertEqual(answer1, .serviceUnavailable)
        let rows = try await pool.query("SELECT count(*) AS n FROM upstream_answers").first?.decode(Int.self, "n")
        XCTAssertEqual(rows, 1)
        // 429 pauses every Wikipedia call.
        upstream.set(.wikipedia, .rateLimited(retryAfter: 20))
        let answer2 = await service.summaries.response(for: try summary("A_b"), client: nil).response.headers["retry-after"]
        XCTAssertEqual(answer2, "20")
        upstream.set(.wikipedia, .normal)
        let answer3 = await service.searches.response(for: search, client: nil).response.status
        XCTAssertEqual(answer3, .serviceUnavailable)
        let serviceHealth = try OrderedJSONEncoder.string(service.health())
        XCTAssertTrue(serviceHealth.contains(#""paused_s":20"#), serviceHealth)
    }

    func testThePoliteRateIsKeptAndEachClientHasAShare() async throws {
        let service = service()
        let client = IPAddress("203.0.113.7").map(Spender.init)
        var statuses: [HTTPStatus] = []
        for index in 0..<5 {
            statuses.append(await service.summaries.response(for: try summary("Title_\(index)"), client: client).response.status)
        }
        XCTAssertEqual(statuses, [.notFound, .notFound, .notFound, .tooManyRequests, .tooManyRequests], "a client takes 60 % of the burst")
        for index in 0..<3 { _ = await service.summaries.response(for: try summary("Other_\(index)"), client: IPAddress("198.51.100.\(index)").map(Spender.init)) }
        XCTAssertEqual(upstream.requests(.wikipedia).count, 5, "at most the burst of 5 at once")
        let refused = await service.summaries.response(for: try summary("Last"), client: IPAddress("192.0.2.1").map(Spender.init))
        XCTAssertEqual(refused.response.status, .serviceUnavailable)
    }

    func testBadTitlesAndLanguagesAre400() {
        for (lang, title) in [("de", "a#b"), ("de", "   "), ("de", String(repeating: "ä", count: 256)), ("DE", "Berlin"), ("d", "Berlin"), ("de.evil.com", "x"), ("de/x", "y")] {
            XCTAssertThrowsError(try SummaryKey(lang: lang, title: title)) { error in
                XCTAssertEqual((error as? HTTPError)?.status, .badRequest, "\(lang) \(title)")
            }
        }
        XCTAssertEqual(try? SummaryKey(lang: "zh-yue", title: "x").lang, "zh-yue")
        XCTAssertThrowsError(try OpenSearchKey(lang: "de", query: QueryParameters(raw: "search=x&namespace=1") ?? QueryParameters()))
        XCTAssertThrowsError(try OpenSearchKey(lang: "de", query: QueryParameters(raw: "search=x&limit=0") ?? QueryParameters()))
        XCTAssertThrowsError(try OpenSearchKey(lang: "de", query: QueryParameters()))
    }

    func testStoredAnswersAreBoundedInNumberKeepingThoseThatExpireLast() async throws {
        let store = SharedAnswerStore(pool: pool)
        let now = Date()
        for index in 0..<5 {
            let answer = StoredAnswer(.missing, body: Array("{}".utf8), fetchedAt: now, expiresAt: now.addingTimeInterval(Double(index + 1) * 3600))
            try await store.store(answer, kind: "wikipedia-summary", key: "de:Title_\(index)", location: nil)
        }
        try await store.store(
            StoredAnswer(.missing, body: Array("{}".utf8), fetchedAt: now, expiresAt: now), kind: "wikipedia-opensearch", key: "de:10:x", location: nil)
        let deleted = try await store.prune(kind: "wikipedia-summary", expiredBefore: now.addingTimeInterval(-86_400), maxRows: 2)
        XCTAssertEqual(deleted, 3)
        let rows = try await pool.query("SELECT key FROM upstream_answers WHERE kind = 'wikipedia-summary' ORDER BY key")
        XCTAssertEqual(try rows.map { try $0.decode(String.self, "key") }, ["de:Title_3", "de:Title_4"])
        let searches = try await store.summary(kind: "wikipedia-opensearch").count
        XCTAssertEqual(searches, 1, "another kind is untouched")
        XCTAssertEqual(Service.Settings().maxRows, 200_000)
        XCTAssertEqual(Service.Settings().upstream.perDay, 20_000, "Wikipedia's daily budget (its rows a day)")
    }
}
