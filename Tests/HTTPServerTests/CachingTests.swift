import AnswerCaching
import Foundation
@testable import HTTPServer
import Synchronization
import XCTest

final class CachingTests: XCTestCase {
    func testEntityTagsAreStableAndDiffer() {
        XCTAssertEqual(EntityTag.make(for: Array("abc".utf8)), EntityTag.make(for: Array("abc".utf8)))
        XCTAssertNotEqual(EntityTag.make(for: Array("abc".utf8)), EntityTag.make(for: Array("abd".utf8)))
        XCTAssertEqual(EntityTag.make(for: []).count, 18)
    }

    func testIfNoneMatchLists() {
        let tag = "\"0123456789abcdef\""
        XCTAssertTrue(EntityTag.matches(ifNoneMatch: tag, tag: tag))
        XCTAssertTrue(EntityTag.matches(ifNoneMatch: "W/\(tag)", tag: tag))
        XCTAssertTrue(EntityTag.matches(ifNoneMatch: "\"x\", \(tag)", tag: tag))
        XCTAssertTrue(EntityTag.matches(ifNoneMatch: "*", tag: tag))
        XCTAssertFalse(EntityTag.matches(ifNoneMatch: "\"x\"", tag: tag))
        XCTAssertFalse(EntityTag.matches(ifNoneMatch: "0123456789abcdef", tag: tag))
        // As swift-openapi-generator's clients send it.
        XCTAssertTrue(EntityTag.matches(ifNoneMatch: "%220123456789abcdef%22", tag: tag))
        XCTAssertTrue(EntityTag.matches(ifNoneMatch: "W%2F%220123456789abcdef%22", tag: tag))
        XCTAssertFalse(EntityTag.matches(ifNoneMatch: "%22x%22", tag: tag))
        XCTAssertFalse(EntityTag.matches(ifNoneMatch: "%22%2", tag: tag), "a broken escape is no match, not a crash")
        XCTAssertTrue(EntityTag.matches(ifNoneMatch: "\t\"x\" ,, W/\(tag)\t ", tag: tag), "members trimmed of spaces and tabs, empty ones skipped")
        XCTAssertTrue(EntityTag.matches(ifNoneMatch: tag, tag: "W/\(tag)"), "weak comparison both ways")
        XCTAssertFalse(EntityTag.matches(ifNoneMatch: "", tag: tag))
        XCTAssertFalse(EntityTag.matches(ifNoneMatch: ",", tag: tag))
        XCTAssertFalse(EntityTag.matches(ifNoneMatch: "**", tag: tag))
        XCTAssertFalse(EntityTag.matches(ifNoneMatch: "\(tag)x", tag: tag))
        XCTAssertTrue(EntityTag.matches(ifNoneMatch: "\"y\", %220123456789abcdef%22", tag: tag), "an escaped member after a plain one")
    }

    func testCachedResponseAnswers304WithoutBody() {
        let cached = CachedResponse(json: Array("{}".utf8), headers: ["Cache-Control": "public, max-age=60"])
        let tag = cached.entityTag!
        let plain = cached.response(for: HTTPRequest(method: .get, target: "/", path: "/"))
        XCTAssertEqual(plain.status, .ok)
        XCTAssertEqual(plain.headers["ETag"], tag)
        let conditional = cached.response(for: HTTPRequest(method: .get, target: "/", path: "/", headers: ["if-none-match": tag]))
        XCTAssertEqual(conditional.status, .notModified)
        XCTAssertTrue(conditional.body.isEmpty)
        XCTAssertEqual(conditional.headers["Cache-Control"], "public, max-age=60")
        XCTAssertNil(conditional.headers["Content-Type"])
        let error = CachedResponse(.error(.serviceUnavailable, "no data"))
        XCTAssertEqual(error.response(for: HTTPRequest(method: .get, target: "/", path: "/", headers: ["if-none-match": "*"])).status, .serviceUnavailable)
    }

    func testResponseCacheBuildsOncePerChangeAndDeadline() {
        let builds = Mutex(0)
        let deadline = Date(timeIntervalSince1970: 1000)
        let cache = ResponseCache(name: "t") { key, _ in
            builds.withLock { $0 += 1 }
            return ResponseCache.Entry(response: CachedResponse(json: Array(key.utf8), headers: [:]), validUntil: deadline)
        }
        let early = Date(timeIntervalSince1970: 10)
        for _ in 0..<5 { _ = cache.response(for: "a", now: early) }
        XCTAssertEqual(builds.withLock { $0 }, 1)
        _ = cache.response(for: "b", now: early)
        XCTAssertEqual(builds.withLock { $0 }, 2)
        cache.invalidate()
        _ = cache.response(for: "a", now: early)
        XCTAssertEqual(builds.withLock { $0 }, 3)
        _ = cache.response(for: "a", now: deadline)
        XCTAssertEqual(builds.withLock { $0 }, 4, "rebuilt once the deadline passed")
    }

    func testBearerTokens() {
        func request(_ authorization: String?) -> HTTPRequest {
            HTTPRequest(method: .post, target: "/", path: "/", headers: authorization.map { ["authorization": $0] } ?? [:])
        }
        XCTAssertEqual(BearerToken(secret: nil).check(request("Bearer x")), .disabled)
        XCTAssertEqual(BearerToken(secret: "").check(request("Bearer ")), .disabled)
        let token = BearerToken(secret: "secret")
        XCTAssertEqual(token.check(request("Bearer secret")), .allowed)
        XCTAssertEqual(token.check(request("bearer secret")), .allowed)
        XCTAssertEqual(token.check(request("BEARER secret")), .allowed)
        XCTAssertEqual(token.check(request("  bEaReR secret")), .allowed)
        for scheme in ["Bearers", "Beare", "Bearer@", "Bearor", "bearer\u{7F}"] {
            XCTAssertEqual(token.check(request(scheme + " secret")), .rejected, scheme)
        }
        for wrong in [nil, "Bearer", "Bearer secre", "Bearer secret2", "Bearer Secret", "Basic secret", "secret"] as [String?] {
            XCTAssertEqual(token.check(request(wrong)), .rejected, wrong ?? "nil")
        }
        // The secret followed by 256 (or 512) more bytes: a length difference an 8-bit accumulator lost.
        for extra in [256, 512, 1] {
            let longer = "secret" + String(repeating: "x", count: extra)
            XCTAssertEqual(token.check(request("Bearer " + longer)), .rejected, "\(extra) bytes more")
        }
        // The one reading of `Bearer <token>` the routes share: the split PostgREST-style clients and curl send.
        let readings: [(String, String?)] = [
            ("Bearer abc", "abc"), ("BEARER abc", "abc"), ("  bearer abc", "abc"), ("Bearer   abc", "  abc"), ("Bearer a b", "a b"),
            ("Bearer", nil), ("Bearer ", nil), ("Bearerabc", nil), ("Basic abc", nil), ("Bearer\tabc", nil), ("", nil), ("   ", nil),
            ("Bëarer abc", nil), ("Bearer é", "é"),
        ]
        for (field, token) in readings { XCTAssertEqual(BearerToken.credentials(field).map(String.init), token, field) }
        XCTAssertFalse(BearerToken.constantTimeEqual(Array("secret".utf8) + [UInt8](repeating: 0, count: 256), Array("secret".utf8)))
        XCTAssertEqual(BearerToken.response(for: .rejected, disabled: "off")?.headers["WWW-Authenticate"], "Bearer")
        let disabled = BearerToken.response(for: .disabled, disabled: "the route is off")
        XCTAssertEqual(disabled?.status, .forbidden)
        XCTAssertEqual(disabled.map { String(decoding: $0.body, as: UTF8.self) }, #"{"error":"the route is off"}"#)
        XCTAssertNil(BearerToken.response(for: .allowed, disabled: "off"))
    }

    func testPathTemplatesMatchSegmentByByte() {
        let template = PathTemplate("/v1/wikipedia/{lang}/summary/{title}")
        XCTAssertEqual(template.match("/v1/wikipedia/de/summary/Zürich"), ["lang": "de", "title": "Zürich"])
        XCTAssertEqual(template.match("/v1/wikipedia/de/summary/a\u{301}"), ["lang": "de", "title": "a\u{301}"])
        // A slash a combining mark follows is still a slash: two segments, not one.
        XCTAssertNil(template.match("/v1/wikipedia/de/summary/a/\u{301}"))
        for path in ["/v1/wikipedia/de/summary/", "/v1/wikipedia//summary/x", "/v1/wikipedia/de/summary", "/v1/wikipedia/de/summary/x/",
                     "/v1/wikipedia/de/Summary/x", "v1/wikipedia/de/summary/x", "/v1/wikipedia/de/summar/x", ""] {
            XCTAssertNil(template.match(path), path)
        }
        XCTAssertEqual(PathTemplate("/rest/v1/rpc/{function}").match("/rest/v1/rpc/wave_leaderboard"), ["function": "wave_leaderboard"])
        XCTAssertEqual(PathTemplate("/a").match("/a"), [:])
        // The prefix's whole segments are matched with it; a parameter first, or a literal with a brace, has none.
        XCTAssertEqual(template.shape.prefixSegments.count, 3)
        XCTAssertEqual(template.shape.prefixSegments.bytes, "/v1/wikipedia/".utf8.count)
        XCTAssertEqual(PathTemplate("/{a}/x").match("/1/x"), ["a": "1"])
        XCTAssertNil(PathTemplate("/{a}/x").match("/1/y"))
        XCTAssertEqual(PathTemplate("/a{b/{c}").match("/a{b/1"), ["c": "1"])
        XCTAssertNil(PathTemplate("/a{b/{c}").match("/a{c/1"))
        XCTAssertEqual(PathTemplate("/a/{b}/c/{d}").match("/a/1/c/2"), ["b": "1", "d": "2"])
        XCTAssertNil(PathTemplate("/a/{b}/c/{d}").match("/a/1/x/2"))
        // A value asked of a path shorter than the prefix (never a matched one) is absent, not a crash.
        XCTAssertNil(PathParameters(template.shape).value("title", in: "/v1"))
    }

    /// The route `router` finds for a `GET` of `path`.
    private static func route(of path: String, in router: Router) -> String? {
        if case .found(_, let route, _, _, _) = router.match(.get, path: path) { return route }
        return nil
    }

    /// Templates are asked the longest literal prefix first, then in registration order.
    func testTheTemplateWithMoreOfThePathWrittenOutWins() {
        var router = Router()
        router.on(.get, "/a/{x}/c") { _ in HTTPResponse() }
        router.on(.get, "/a/b/{y}") { _ in HTTPResponse() }
        router.on(.get, "/a/{z}/d") { _ in HTTPResponse() }
        router.on(.get, "/a/{w}/d") { _ in HTTPResponse() }
        func route(_ path: String) -> String? { Self.route(of: path, in: router) }
        XCTAssertEqual(route("/a/b/c"), "/a/b/{y}")
        XCTAssertEqual(route("/a/q/c"), "/a/{x}/c")
        XCTAssertEqual(route("/a/q/d"), "/a/{z}/d", "equal prefixes: the first registered")
        XCTAssertNil(route("/a/q/e"))
    }

    /// A handler reads a value's bytes where they lie, decoded, as `parameter(_:)` reads its `String`.
    func testAParameterIsReadAsBytesWithoutAString() throws {
        var router = Router()
        router.on(.get, "/v1/wikipedia/{lang}/summary/{title}") { _ in HTTPResponse() }
        guard case .found(_, _, _, let parameters, _) = router.match(.get, path: "/v1/wikipedia/de/summary/Schöner Brunnen") else {
            return XCTFail("no match")
        }
        var request = HTTPRequest(method: .get, target: "/v1/wikipedia/de/summary/Sch%C3%B6ner%20Brunnen", path: "/v1/wikipedia/de/summary/Schöner Brunnen")
        request.pathParameters = parameters
        XCTAssertEqual(try request.withParameter("title") { String(decoding: $0, as: UTF8.self) }, "Schöner Brunnen")
        XCTAssertEqual(try request.withParameter("lang") { Array($0) }, Array("de".utf8))
        XCTAssertEqual(try request.parameter("title"), "Schöner Brunnen")
        XCTAssertThrowsError(try request.withParameter("page") { _ in () })
    }

    /// A path that is not ASCII skips the exact routes' dictionary and still finds an exact route that is not ASCII
    /// (matched byte for byte, as a template's literals are).
    func testANonASCIIPathFindsItsTemplateAndAnExactNonASCIIRoute() {
        var router = Router()
        router.on(.get, "/v1/wikipedia/{lang}/summary/{title}") { _ in HTTPResponse() }
        router.on(.get, "/v1/ships") { _ in HTTPResponse() }
        func route(_ path: String) -> String? { Self.route(of: path, in: router) }
        XCTAssertEqual(route("/v1/wikipedia/de/summary/Schöner Brunnen"), "/v1/wikipedia/{lang}/summary/{title}")
        XCTAssertEqual(route("/v1/ships"), "/v1/ships")
        XCTAssertNil(route("/v1/shïps"))
        router.on(.get, "/v1/zürich") { _ in HTTPResponse() }
        XCTAssertEqual(route("/v1/zürich"), "/v1/zürich")
        XCTAssertNil(route("/v1/zu\u{308}rich"), "only canonically equivalent: another path, as for a template's literal")
        router.on(.get, "/v1/a-longer-path/zürich") { _ in HTTPResponse() }
        XCTAssertEqual(route("/v1/a-longer-path/zürich"), "/v1/a-longer-path/zürich")
        XCTAssertEqual(route("/v1/wikipedia/de/summary/Zürich"), "/v1/wikipedia/{lang}/summary/{title}")
        // Another method on a template's path is refused under the template's label and slot, never the path asked.
        guard case .methodNotAllowed(let allow, let refused, let slot) = router.match(.put, path: "/v1/wikipedia/de/summary/anything") else {
            return XCTFail("a wrong method is 405")
        }
        XCTAssertEqual(refused, "/v1/wikipedia/{lang}/summary/{title}")
        XCTAssertEqual(allow, "GET, HEAD, OPTIONS")
        guard case .found(_, _, _, _, let found) = router.match(.get, path: "/v1/wikipedia/de/summary/x") else { return XCTFail("no match") }
        XCTAssertEqual(slot, found)
    }

    /// The router records which template matched; a handler's request reads each segment from its path when it asks.
    func testARoutesSegmentsAreReadFromThePathWhenAsked() throws {
        var router = Router()
        router.on(.get, "/v1/alplakes/{lake}/{start}/{end}/{depth}") { _ in HTTPResponse() }
        router.on(.get, "/v1/exact") { _ in HTTPResponse() }
        let path = "/v1/alplakes/genf/2026ü/x/7"
        guard case .found(_, let route, _, let parameters, _) = router.match(.get, path: path) else { return XCTFail("no match") }
        XCTAssertEqual(route, "/v1/alplakes/{lake}/{start}/{end}/{depth}")
        var request = HTTPRequest(method: .get, target: path, path: path)
        request.pathParameters = parameters
        XCTAssertEqual(try ["lake", "start", "end", "depth"].map { try request.parameter($0) }, ["genf", "2026ü", "x", "7"])
        XCTAssertThrowsError(try request.parameter("title"), "a name the template lacks is 404")
        guard case .found(_, _, _, let none, _) = router.match(.get, path: "/v1/exact") else { return XCTFail("no match") }
        XCTAssertTrue(none.isEmpty)
        XCTAssertNil(none.value("lake", in: "/v1/exact"))
    }

    func testTheAnswerCacheStartsOverPastEitherBoundAndHonoursDeadlines() {
        let cache = AnswerCache<Int>(entries: 3, bytes: 1 << 20)
        let answer = { (text: String) in CachedResponse(json: Array(text.utf8), headers: [:]) }
        for key in 0..<3 { cache.keep(answer("v\(key)"), for: key) }
        cache.keep(answer("again"), for: 1)
        XCTAssertNotNil(cache.answer(for: 0), "replacing a key does not count as growth")
        XCTAssertEqual(cache.answer(for: 1).map { String(decoding: $0.response.body, as: UTF8.self) }, "again")
        cache.keep(answer("v3"), for: 3)
        XCTAssertNil(cache.answer(for: 0), "a new key beyond the entries starts over")
        XCTAssertNotNil(cache.answer(for: 3))
        let now = Date()
        cache.keep(answer("soon"), for: 4, until: now.addingTimeInterval(10))
        XCTAssertNotNil(cache.answer(for: 4, now: now))
        XCTAssertNil(cache.answer(for: 4, now: now.addingTimeInterval(10)), "not at or past its deadline")
        cache.removeAll()
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.bytes, 0)
    }

    /// The engine's renderings and the community's keys: the same rule behind a lock of their own.
    func testTheAnswerTableKeepsTheSameRule() {
        let table = AnswerTable<String, Int>(entries: 2, bytes: 100)
        table.set(1, for: "a", cost: 40)
        table.set(2, for: "b", cost: 40)
        XCTAssertEqual(table["a"], 1)
        table.set(3, for: "c", cost: 10)
        XCTAssertNil(table["a"], "past its entries it starts over")
        XCTAssertEqual(table["c"], 3)
        table.set(4, for: "d", cost: 95)
        XCTAssertEqual(table.count, 1, "past its bytes it starts over")
        XCTAssertEqual(table.bytes, 95)
        table.set(5, for: "e", cost: 101)
        XCTAssertNil(table["e"], "one answer over the whole table is not held")
        table.remove("d")
        XCTAssertEqual(table.bytes, 0)
    }

    /// A flood of distinct keys (what a hostile client sends) keeps the cache within its bytes, whatever the answers
    /// weigh; an answer costing more than the whole cache is not held.
    func testAFloodOfDistinctKeysKeepsTheAnswerCacheWithinItsBytes() {
        let budget = 64 << 10
        let cache = AnswerCache<String>(entries: 100_000, bytes: budget)
        var largest = 0
        for index in 0..<20_000 {
            let key = "key-\(index)-" + String(repeating: "x", count: index % 200)
            cache.keep(CachedResponse(json: [UInt8](repeating: 0x20, count: 100 + index % 900), headers: [:]), for: key, keyBytes: key.utf8.count)
            largest = max(largest, cache.bytes)
        }
        XCTAssertLessThanOrEqual(largest, budget)
        XCTAssertGreaterThan(largest, budget / 2, "the bound is used, not a smaller one")
        cache.keep(CachedResponse(json: [UInt8](repeating: 0x20, count: budget), headers: [:]), for: "huge")
        XCTAssertNil(cache.answer(for: "huge"))
    }
}
